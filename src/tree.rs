//! The subagent tree (DESIGN §4). Contract v1 is rc.8's `listChildren` /
//! `listDescendants` over the header corpus; contract v2 is the caller's
//! root and its subagent-edge tree, with names.

use crate::collate::sibling_order;
use crate::descriptor::{Identity, Mode};
use crate::error::{Error, Result};
use crate::liveness::{self, LiveState, Liveness};
use crate::log;
use crate::store::Store;
use std::collections::{HashMap, HashSet};

/// Parent → children indexes over a store, sorted in sibling order.
pub struct Corpus<'a> {
    pub store: &'a Store,
    /// Every record with a string `parentSession` (forks included).
    all_children: HashMap<&'a str, Vec<usize>>,
}

impl<'a> Corpus<'a> {
    pub fn new(store: &'a Store) -> Self {
        let mut all_children: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, rec) in store.sessions.iter().enumerate() {
            if let Some(parent) = rec.header.parent() {
                all_children.entry(parent).or_default().push(i);
            }
        }
        for siblings in all_children.values_mut() {
            siblings.sort_by(|a, b| {
                let (a, b) = (&store.sessions[*a].header, &store.sessions[*b].header);
                sibling_order(a.created_at, &a.id, b.created_at, &b.id)
            });
        }
        Corpus {
            store,
            all_children,
        }
    }

    /// All children of `id` in sibling order, forks included.
    pub fn children_of(&self, id: &str) -> &[usize] {
        self.all_children.get(id).map_or(&[], Vec::as_slice)
    }

    /// Children of `id` reached through `origin:"subagent"` edges.
    pub fn subagent_children_of(&self, id: &str) -> impl Iterator<Item = usize> + '_ {
        self.children_of(id)
            .iter()
            .copied()
            .filter(|i| self.store.sessions[*i].header.origin_subagent)
    }

    /// rc.8 `listChildren` candidates.
    pub fn v1_children(&self, parent: &str) -> Vec<Position> {
        self.subagent_children_of(parent)
            .map(|index| Position {
                index,
                parent: parent.to_string(),
                depth: 1,
            })
            .collect()
    }

    /// rc.8 `descendantCandidates`: iterative pre-order, cycle-safe; ordinary
    /// and one-shot sessions are traversal nodes; only subagent-origin
    /// records become candidates.
    pub fn v1_descendants(&self, root: &str) -> Vec<Position> {
        let mut out = Vec::new();
        let mut visited: HashSet<&str> = HashSet::from([root]);
        let mut stack: Vec<(usize, &str, u64)> = self
            .children_of(root)
            .iter()
            .rev()
            .map(|i| (*i, root, 1))
            .collect();
        while let Some((index, parent, depth)) = stack.pop() {
            let id = self.store.sessions[index].header.id.as_str();
            if !visited.insert(id) {
                continue;
            }
            if self.store.sessions[index].header.origin_subagent {
                out.push(Position {
                    index,
                    parent: parent.to_string(),
                    depth,
                });
            }
            for child in self.children_of(id).iter().rev() {
                stack.push((*child, id, depth + 1));
            }
        }
        out
    }

    /// The caller's v2 root: follow `parentSession` while the session is a
    /// subagent. A parent missing from the store ends the walk there.
    pub fn root_of(&self, index: usize) -> Result<usize> {
        let mut current = index;
        let mut seen = HashSet::from([index]);
        loop {
            let header = &self.store.sessions[current].header;
            if !header.origin_subagent {
                return Ok(current);
            }
            let Some(parent) = header.parent().and_then(|p| self.store.index_of(p)) else {
                return Ok(current);
            };
            if !seen.insert(parent) {
                return Err(Error::store(format!(
                    "session \"{}\" has a parentSession cycle; its tree has no root",
                    self.store.sessions[index].header.id
                )));
            }
            current = parent;
        }
    }

    /// The v2 name of a session below `root`: the `/`-joined names of the
    /// sessions from below the root to it, or its Session id when any of
    /// them has no name.
    pub fn v2_name(&self, root: usize, index: usize) -> String {
        if index == root {
            return "lead".to_string();
        }
        let mut names = Vec::new();
        let mut current = index;
        let mut seen = HashSet::new();
        while current != root && seen.insert(current) {
            let header = &self.store.sessions[current].header;
            match header.valid_name() {
                Some(n) => names.push(n),
                None => return self.store.sessions[index].header.id.clone(),
            }
            match header.parent().and_then(|p| self.store.index_of(p)) {
                Some(p) => current = p,
                None => break,
            }
        }
        names.reverse();
        names.join("/")
    }

    /// The v2 tree of `root` in stable pre-order: every node reached,
    /// including the unlisted ones (one-shots, externals, creating).
    pub fn v2_tree(&self, root: usize) -> Vec<Member> {
        let root_header = &self.store.sessions[root].header;
        let mut out = vec![Member {
            index: root,
            name: "lead".into(),
            kind: MemberKind::Root,
            live: liveness::probe(&self.store.sessions[root].dir),
        }];
        let classified = self.classify_reachable(root);
        let mut visited: HashSet<usize> = HashSet::from([root]);
        // Each entry carries the parent's name path ("" for the root) or None
        // once an unnamed session has been passed.
        let mut stack: Vec<(usize, Option<String>)> = self
            .subagent_children_of(&root_header.id)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .map(|c| (c, Some(String::new())))
            .collect();
        while let Some((index, parent_path)) = stack.pop() {
            if !visited.insert(index) {
                continue;
            }
            let Some((kind, live)) = classified.get(&index).cloned() else {
                continue;
            };
            let rec = &self.store.sessions[index];
            let path = match (parent_path, rec.header.valid_name()) {
                (Some(p), Some(n)) if p.is_empty() => Some(n.to_string()),
                (Some(p), Some(n)) => Some(format!("{p}/{n}")),
                _ => None,
            };
            let name = path.clone().unwrap_or_else(|| rec.header.id.clone());
            let traverse = kind.is_traversed();
            out.push(Member {
                index,
                name,
                kind,
                live,
            });
            if traverse {
                let children: Vec<usize> = self.subagent_children_of(&rec.header.id).collect();
                for child in children.into_iter().rev() {
                    stack.push((child, path.clone()));
                }
            }
        }
        out
    }
}

impl Corpus<'_> {
    /// The member `index` would be in `root`'s v2 tree, found by checking
    /// only its own ancestry (each log read through the scan cache), or
    /// `None` when the traversal would not reach it. Sends use this so
    /// their cost does not grow with the tree or with log sizes.
    pub fn v2_member_by_path(
        &self,
        cache: &log::ScanCache,
        root: usize,
        index: usize,
    ) -> Option<Member> {
        let classify = |i: usize| {
            let rec = &self.store.sessions[i];
            let live = liveness::probe(&rec.dir);
            (
                classify_inspected(rec, live, cache.inspect(&rec.log, &rec.dir)),
                live,
            )
        };
        if index == root {
            let live = liveness::probe(&self.store.sessions[root].dir);
            return Some(Member {
                index,
                name: "lead".into(),
                kind: MemberKind::Root,
                live,
            });
        }
        let mut chain = Vec::new();
        let mut seen = HashSet::new();
        let mut current = index;
        loop {
            if !seen.insert(current) {
                return None;
            }
            let header = &self.store.sessions[current].header;
            if !header.origin_subagent {
                return None;
            }
            let parent = self.store.index_of(header.parent()?)?;
            if parent == root {
                break;
            }
            chain.push(parent);
            current = parent;
        }
        for ancestor in chain.iter().rev() {
            if !classify(*ancestor).0.is_traversed() {
                return None;
            }
        }
        let (kind, live) = classify(index);
        Some(Member {
            index,
            name: self.v2_name(root, index),
            kind,
            live,
        })
    }

    /// Sessions whose full v2 name is `name`, walking header names down from
    /// the root (reachability is checked by the caller).
    pub fn v2_named(&self, root: usize, name: &str) -> Vec<usize> {
        if name == "lead" {
            return vec![root];
        }
        let mut current = vec![root];
        for segment in name.split('/') {
            let mut next = Vec::new();
            for node in &current {
                let id = &self.store.sessions[*node].header.id;
                next.extend(
                    self.subagent_children_of(id)
                        .filter(|c| self.store.sessions[*c].header.valid_name() == Some(segment)),
                );
            }
            current = next;
            if current.is_empty() {
                break;
            }
        }
        current
    }

    /// Classify every node the v2 traversal will reach, one tree level at a
    /// time so each level's log reads run in parallel.
    fn classify_reachable(&self, root: usize) -> HashMap<usize, (MemberKind, Liveness)> {
        let mut kinds = HashMap::new();
        let mut seen: HashSet<usize> = HashSet::from([root]);
        let mut level: Vec<usize> = self
            .subagent_children_of(&self.store.sessions[root].header.id)
            .collect();
        while !level.is_empty() {
            level.retain(|i| seen.insert(*i));
            let results = crate::parallel::par_map(&level, |i| {
                let rec = &self.store.sessions[*i];
                let live = liveness::probe(&rec.dir);
                (classify_v2(rec, live), live)
            });
            let mut next = Vec::new();
            for (index, result) in level.iter().zip(results) {
                if result.0.is_traversed() {
                    next.extend(self.subagent_children_of(&self.store.sessions[*index].header.id));
                }
                kinds.insert(*index, result);
            }
            level = next;
        }
        kinds
    }
}

/// A v1 candidate with its durable direct parent and depth.
#[derive(Debug, Clone)]
pub struct Position {
    pub index: usize,
    pub parent: String,
    pub depth: u64,
}

/// What a v2 tree node is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemberKind {
    Root,
    Continuable {
        label: String,
    },
    /// Traversed, never listed.
    OneShot,
    Corrupt,
    Unsupported,
    Unavailable,
    /// An external execution: neither listed nor traversed.
    External,
    /// Live without a descriptor yet (the creation window): omitted.
    Creating,
}

impl MemberKind {
    pub fn is_listed(&self) -> bool {
        !matches!(
            self,
            MemberKind::OneShot | MemberKind::External | MemberKind::Creating
        )
    }

    /// Whether the v2 traversal continues below this node.
    pub fn is_traversed(&self) -> bool {
        matches!(self, MemberKind::Continuable { .. } | MemberKind::OneShot)
    }

    /// The mode column of the operator's tree view.
    pub fn mode(&self) -> &'static str {
        match self {
            MemberKind::Root => "root",
            MemberKind::Continuable { .. } => "continuable",
            MemberKind::OneShot => "one-shot",
            MemberKind::External => "external",
            MemberKind::Creating => "creating",
            MemberKind::Corrupt | MemberKind::Unsupported | MemberKind::Unavailable => "-",
        }
    }
}

/// One node of a v2 tree.
#[derive(Debug, Clone)]
pub struct Member {
    pub index: usize,
    pub name: String,
    pub kind: MemberKind,
    pub live: Liveness,
}

impl Member {
    /// The v2 status word of a listed row.
    pub fn status(&self) -> &'static str {
        match self.kind {
            MemberKind::Corrupt => "corrupt",
            MemberKind::Unsupported => "unsupported",
            MemberKind::Unavailable => "unavailable",
            _ if self.live.is_live() => "running",
            _ => "inactive",
        }
    }
}

fn classify_v2(rec: &crate::store::SessionRecord, live: Liveness) -> MemberKind {
    classify_inspected(rec, live, log::inspect(&rec.log))
}

fn classify_inspected(
    rec: &crate::store::SessionRecord,
    live: Liveness,
    inspected: Result<log::Inspection, String>,
) -> MemberKind {
    let inspection = match inspected {
        Ok(i) if i.header == rec.header => i,
        Ok(_) => return MemberKind::Corrupt,
        Err(_) => return MemberKind::Unavailable,
    };
    match inspection.seed001 {
        None if live.is_live() => MemberKind::Creating,
        None => MemberKind::Corrupt,
        Some(Identity {
            mode: Mode::Continuable,
            label,
        }) => MemberKind::Continuable {
            label: label.unwrap_or_default(),
        },
        Some(Identity {
            mode: Mode::OneShot,
            ..
        }) => MemberKind::OneShot,
        Some(Identity {
            mode: Mode::External,
            ..
        }) => MemberKind::External,
        Some(Identity {
            mode: Mode::Unknown(_),
            ..
        }) => MemberKind::Unsupported,
    }
}

/// A resolved v1 row (rc.8 `resolveCandidateRows` + the tool projection).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum V1Row {
    Child {
        id: String,
        mode: Mode,
        label: Option<String>,
        status: &'static str,
    },
    Diagnostic {
        id: String,
        reason: &'static str,
    },
}

/// Resolve one v1 candidate; `None` when rc.8 omits it.
pub fn resolve_v1(store: &Store, index: usize) -> Option<V1Row> {
    let rec = &store.sessions[index];
    let id = rec.header.id.clone();
    let live = liveness::probe(&rec.dir);
    let inspected = log::inspect(&rec.log);
    if let Liveness::Live { state } = live {
        // A live session is read from its in-memory projection in DSH; a
        // snapshot that throws is corrupt, a missing identity is omitted.
        let identity = match inspected {
            Ok(i) => i.rc8?,
            Err(_) => {
                return Some(V1Row::Diagnostic {
                    id,
                    reason: "corrupt",
                });
            }
        };
        let status = if state == LiveState::Running {
            "running"
        } else {
            "idle"
        };
        return Some(V1Row::Child {
            id,
            mode: identity.mode,
            label: identity.label,
            status,
        });
    }
    let inspection = match inspected {
        Ok(i) => i,
        Err(_) => {
            return Some(V1Row::Diagnostic {
                id,
                reason: "unavailable",
            });
        }
    };
    if inspection.header != rec.header {
        return Some(V1Row::Diagnostic {
            id,
            reason: "corrupt",
        });
    }
    match inspection.rc8 {
        None => Some(V1Row::Diagnostic {
            id,
            reason: "corrupt",
        }),
        Some(identity) => Some(V1Row::Child {
            id,
            mode: identity.mode,
            label: identity.label,
            status: "ready",
        }),
    }
}
