//! What a v2 walk classified ahead of the members that lead further down,
//! by tree level and session position, until the walk hands the member
//! out: 16 bytes a member kept, in one sorted array a level, and the
//! labels in one buffer (a label apiece would cost an allocation each, an
//! entry of the full kind 40 bytes, and a map entry twice as much while it
//! grows). Members that lead nowhere (most of a wide tree) are classified
//! as they are handed out and never kept here, and neither is what a log
//! says of its turns: a walk that wants it reads the log again when it
//! hands the member out (an eighth of the logs of an eight-wide tree),
//! where keeping it cost 120 bytes a member.

use super::corpus::{live_code, live_of};
use super::member_kind::MemberKind;
use crate::inbox::liveness::Liveness;

#[derive(Debug, Default)]
pub struct Classes {
    /// Each level's members by position (sorted by `seal`).
    levels: Vec<Vec<Slot>>,
    labels: String,
    /// Labels put once `labels` holds 4 GiB, by position.
    spilled: std::collections::HashMap<u32, String>,
}

#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    /// The session's position.
    at: u32,
    /// `SPILLED`: the label is in `spilled`.
    label_at: u32,
    label_len: u32,
    /// 0 once taken.
    kind: u8,
    live: u8,
}

const SPILLED: u32 = u32::MAX;

fn kind_code(kind: &MemberKind) -> u8 {
    match kind {
        MemberKind::Root => 1,
        MemberKind::Continuable { .. } => 2,
        MemberKind::OneShot => 3,
        MemberKind::Corrupt => 4,
        MemberKind::Unsupported => 5,
        MemberKind::Unavailable => 6,
        MemberKind::External => 7,
        MemberKind::Creating => 8,
    }
}

impl Classes {
    /// Keep what the member at `index`, on tree level `level`, was
    /// classified as.
    pub fn put(&mut self, level: usize, index: usize, kind: MemberKind, live: Liveness) {
        let code = kind_code(&kind);
        let label = match &kind {
            MemberKind::Continuable { label } => label.as_str(),
            _ => "",
        };
        // A label is one line of a log, far below 4 GiB.
        let (Ok(label_len), Ok(at)) = (u32::try_from(label.len()), u32::try_from(index)) else {
            return;
        };
        let label_at = match u32::try_from(self.labels.len()) {
            Ok(at) if at < SPILLED => {
                self.labels.push_str(label);
                at
            }
            _ => {
                self.spilled.insert(at, label.to_string());
                SPILLED
            }
        };
        if self.levels.len() <= level {
            self.levels.resize_with(level + 1, Vec::new);
        }
        self.levels[level].push(Slot {
            at,
            label_at,
            label_len,
            kind: code,
            live: live_code(live),
        });
    }

    /// Every member is put: each level is sorted for `take`.
    pub fn seal(&mut self) {
        for level in &mut self.levels {
            level.sort_unstable_by_key(|s| s.at);
        }
    }

    /// What the member at `index` on level `level` was classified as,
    /// handed out once (after `seal`).
    pub fn take(&mut self, level: usize, index: usize) -> Option<(MemberKind, Liveness)> {
        let at = u32::try_from(index).ok()?;
        let slots = self.levels.get_mut(level)?;
        let k = slots.binary_search_by_key(&at, |s| s.at).ok()?;
        let Slot {
            label_at,
            label_len,
            kind,
            live,
            ..
        } = slots[k];
        slots[k].kind = 0;
        let kind = match kind {
            1 => MemberKind::Root,
            2 if label_at == SPILLED => MemberKind::Continuable {
                label: self.spilled.remove(&at).unwrap_or_default(),
            },
            2 => MemberKind::Continuable {
                label: self.labels[label_at as usize..label_at as usize + label_len as usize]
                    .to_string(),
            },
            3 => MemberKind::OneShot,
            4 => MemberKind::Corrupt,
            5 => MemberKind::Unsupported,
            6 => MemberKind::Unavailable,
            7 => MemberKind::External,
            8 => MemberKind::Creating,
            _ => return None,
        };
        Some((kind, live_of(live)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inbox::liveness::LiveState;

    /// Every kind and liveness reads back once as it was put, labels
    /// included, on its own level; a position never put there, or taken
    /// already, reads as nothing.
    #[test]
    fn what_is_put_is_taken_once() {
        let kinds = [
            MemberKind::Root,
            MemberKind::Continuable {
                label: "first".into(),
            },
            MemberKind::Continuable {
                label: String::new(),
            },
            MemberKind::OneShot,
            MemberKind::Corrupt,
            MemberKind::Unsupported,
            MemberKind::Unavailable,
            MemberKind::External,
            MemberKind::Creating,
            MemberKind::Continuable {
                label: "lé dernier".into(),
            },
        ];
        let lives = [
            Liveness::NotLive,
            Liveness::Live {
                state: LiveState::Idle,
            },
            Liveness::Live {
                state: LiveState::Running,
            },
            Liveness::Unknown,
        ];
        let mut classes = Classes::default();
        // Put out of position order, over three levels.
        let at = |i: usize| (kinds.len() - i) * 7;
        for (i, kind) in kinds.iter().enumerate() {
            classes.put(i % 3, at(i), kind.clone(), lives[i % lives.len()]);
        }
        classes.seal();
        for (i, kind) in kinds.iter().enumerate().rev() {
            assert!(classes.take((i + 1) % 3, at(i)).is_none(), "another level");
            let (k, l) = classes.take(i % 3, at(i)).expect("put");
            assert_eq!((&k, l), (kind, lives[i % lives.len()]));
            assert!(classes.take(i % 3, at(i)).is_none(), "taken once");
        }
        assert!(classes.take(0, 1).is_none());
        assert!(classes.take(7, at(0)).is_none());
    }
}
