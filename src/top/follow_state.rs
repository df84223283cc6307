//! What a following `events` last saw, kept in the cache directory (never
//! in the store: DSH reads every directory under the root as a project):
//! the tree's last observation and the stale messages already reported. A
//! follower that starts again compares the store with what it saw before it
//! stopped, so a transition made while no follower ran is reported, and one
//! already reported is not reported again.
//!
//! The state is saved after the events of a look are written: a follower
//! stopped by Ctrl-C, SIGTERM or a closed output reports each transition
//! once; one killed between writing and saving reports that look's events
//! again when it starts (at least once, never lost). One state a store and
//! AGENT: two followers of the same share it, the last to save wins.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

const FORMAT: u32 = 1;

/// `O`: what a look holds of one agent (`events::Observed`; generic so
/// this file needs nothing of the follower's).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FollowState<O> {
    format: u32,
    /// Each agent as the last look saw it, and how many messages it had
    /// pending.
    pub observed: Vec<(O, u64)>,
    /// The pending messages already reported stale.
    pub reported: Vec<String>,
}

impl<O> FollowState<O> {
    pub fn new(observed: Vec<(O, u64)>, reported: Vec<String>) -> FollowState<O> {
        FollowState {
            format: FORMAT,
            observed,
            reported,
        }
    }
}

/// The file the follower of `agent` (none: every tree) in the store at
/// `root` keeps its state in, under the cache directory `cache`.
pub fn path(cache: &Path, root: &Path, agent: Option<&str>) -> PathBuf {
    let agent = agent.unwrap_or("");
    let key = dsh_store::files::fnv(&[agent.as_bytes()]);
    dsh_store::files::store_dir(cache, root).join(format!("events-{key:016x}.json"))
}

/// The state saved at `path`; none when there is none or it cannot be
/// used (another format, a damaged file): the follower then starts from
/// what it sees, as a first run does.
pub fn load<O: DeserializeOwned>(path: &Path) -> Option<FollowState<O>> {
    let bytes = dsh_store::files::read_small(path)?;
    let state: FollowState<O> = serde_json::from_slice(&bytes).ok()?;
    (state.format == FORMAT).then_some(state)
}

/// Save `state` at `path` (a new file renamed over the old, so a reader
/// sees the old state or the new, never a mix). A cache that cannot be
/// written is said once by the caller and costs only the resumption.
pub fn save<O: Serialize>(path: &Path, state: &FollowState<O>) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let bytes = serde_json::to_vec(state).map_err(std::io::Error::other)?;
    dsh_store::files::replace_cache_file(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::top::events::Observed;

    #[test]
    fn a_saved_state_loads_as_it_was_and_a_bad_one_not_at_all() {
        let dir = std::env::temp_dir().join(format!("follow-state-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let root = Path::new("/some/store");
        let p = path(&dir, root, Some("reviewer"));
        assert_ne!(p, path(&dir, root, None));
        assert_ne!(p, path(&dir, Path::new("/other/store"), Some("reviewer")));
        assert_eq!(load::<Observed>(&p), None);
        let o = Observed {
            id: "rev-1".into(),
            name: "reviewer".into(),
            state: "running".into(),
            turn: 3,
            open: true,
            ending: None,
            parked: false,
        };
        let state = FollowState::new(vec![(o, 2)], vec!["m-1".into()]);
        save(&p, &state).unwrap();
        assert_eq!(load(&p), Some(state));
        for bad in ["", "{", "{\"format\":2,\"observed\":[],\"reported\":[]}"] {
            std::fs::write(&p, bad).unwrap();
            assert_eq!(load::<Observed>(&p), None, "{bad}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
