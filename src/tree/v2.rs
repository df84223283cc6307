//! Contract v2 (seed 001): the caller's root and its subagent-edge tree in
//! stable pre-order, what each node is, the one name rule, and the one
//! resolver from a `send_message` / `interrupt_agent` argument to a member.

use super::classes::Classes;
use super::corpus::Corpus;
use crate::inbox::liveness::{LiveState, Liveness};
use dsh_store::LogError;
use dsh_store::accel::ScanCache;
use dsh_store::format::ROOT_NAME;
use dsh_store::format::{Dialect, Identity, Mode};
use dsh_store::log::{Inspection, inspect};
use dsh_store::set::Glance;
use dsh_store::{SessionPos, SessionRecord};

pub use super::member_kind::{MemberKind, RowMode};

/// The v2 status words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum V2Status {
    Running,
    Inactive,
    Corrupt,
    Unsupported,
    Unavailable,
}

impl V2Status {
    pub fn as_str(self) -> &'static str {
        match self {
            V2Status::Running => "running",
            V2Status::Inactive => "inactive",
            V2Status::Corrupt => "corrupt",
            V2Status::Unsupported => "unsupported",
            V2Status::Unavailable => "unavailable",
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
    /// What its log says about turns, when the traversal read it and was
    /// asked to keep it (boxed: a listing of many members keeps none).
    pub activity: Option<Box<Activity>>,
}

/// A log's turn state, as the inspection that classified it saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct Activity {
    pub open_turn: bool,
    pub last_turn: u64,
    pub last_ending: Option<dsh_store::log::Ending>,
    /// The time of the last turn boundary.
    pub turn_time: i64,
    /// Items pending in DSH's own inbox (in the log), and whether an
    /// aborted turn left them parked.
    pub native_pending: usize,
    pub native_parked: bool,
    /// DSH refuses a splice of its own inbox: it cannot resume the session.
    pub native_error: bool,
    /// The tokens the session's own model calls reported, when any did
    /// (a tree of a million sessions keeps one of these each).
    pub usage: Option<Box<dsh_store::format::TokenCounts>>,
}

impl Activity {
    /// `live`: the session's liveness, which decides whether an open turn
    /// with items pending is parked (resident, idle) or a crash.
    pub fn of(i: &Inspection, live: Liveness) -> Activity {
        Activity {
            open_turn: i.open_turn,
            last_turn: i.last_turn,
            last_ending: i.last_ending.clone(),
            turn_time: i.turn_time,
            native_pending: i.native.pending(),
            native_error: i.native.error.is_some(),
            native_parked: i.native_parked(
                live == Liveness::Live {
                    state: LiveState::Idle,
                },
            ),
            usage: (i.usage != Default::default()).then(|| Box::new(i.usage)),
        }
    }

    /// The tokens the session's own model calls reported.
    pub fn tokens(&self) -> dsh_store::format::TokenCounts {
        self.usage.as_deref().copied().unwrap_or_default()
    }
}

impl Member {
    /// The v2 status of a listed row.
    pub fn status(&self) -> V2Status {
        match self.kind {
            MemberKind::Corrupt => V2Status::Corrupt,
            MemberKind::Unsupported => V2Status::Unsupported,
            MemberKind::Unavailable => V2Status::Unavailable,
            _ if self.live.is_live() => V2Status::Running,
            _ => V2Status::Inactive,
        }
    }
}

/// The name rule, one step down the tree: a child's name path from its
/// parent's (`Some("")` below the root, `None` once an unnamed session was
/// passed) and its own valid header name.
fn child_path(parent: Option<&str>, name: Option<&str>) -> Option<String> {
    match (parent?, name?) {
        ("", n) => Some(n.to_string()),
        (p, n) => Some(format!("{p}/{n}")),
    }
}

/// How the v2 resolver answered an `agent` argument.
#[derive(Debug, Clone)]
pub enum Resolution {
    /// A member of the caller's tree, by name path or Session id.
    Member(Member),
    /// A Session id in the store that the caller's tree does not reach;
    /// `same_root` when it hangs below the same root behind an unreadable
    /// or untraversed ancestor.
    Outside { index: usize, same_root: bool },
    /// Neither a name in the tree nor a Session id in the store.
    NotFound,
    /// A name path several members share: their Session ids.
    Ambiguous(Vec<String>),
}

/// The one v2 classification of a subagent from what its log says.
fn classify(live: Liveness, glance: Glance) -> MemberKind {
    let identity = match glance {
        Glance::Read {
            same_header: true,
            identity,
            ..
        } => identity,
        Glance::Read { .. } => return MemberKind::Corrupt,
        Glance::Unreadable => return MemberKind::Unavailable,
    };
    match identity {
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

pub(crate) fn classify_inspected(
    rec: &SessionRecord,
    live: Liveness,
    inspected: Result<Inspection, LogError>,
) -> MemberKind {
    classify(live, Glance::of(&rec.header, inspected, Dialect::Seed001))
}

impl<'a> Corpus<'a> {
    fn root_member(&self, root: usize) -> Member {
        Member {
            index: root,
            name: ROOT_NAME.into(),
            kind: MemberKind::Root,
            live: self.live(root),
            activity: None,
        }
    }

    /// The v2 name of a session below `root`: the `/`-joined names of the
    /// sessions from below the root to it, or its Session id when any of
    /// them has no name.
    pub fn v2_name(&self, root: usize, index: usize) -> String {
        if index == root {
            return ROOT_NAME.to_string();
        }
        let mut chain = vec![index];
        for ancestor in self.ancestors(index) {
            match ancestor {
                Ok(a) if a != root => chain.push(a),
                _ => break,
            }
        }
        let path = chain.iter().rev().try_fold(String::new(), |path, i| {
            child_path(Some(&path), self.store.sessions.valid_name(*i))
        });
        path.unwrap_or_else(|| self.id(index).to_string())
    }

    /// The v2 tree of `root` in stable pre-order, one member at a time:
    /// every node reached, including the unlisted ones (one-shots,
    /// externals, creating), each with its `activity` when `activity` is
    /// set. The walk itself never holds them all. Its upper size bound is
    /// exact for a tree with no node reached twice.
    pub fn v2_walk(&self, root: usize, activity: bool) -> V2Walk<'_, 'a> {
        let (classified, reached) = self.classify_reachable(root);
        let below = Bits::default();
        self.walk_from(root, activity, Course::Ahead(classified), below, reached)
    }

    /// `root`'s tree walked again as an earlier walk of it went
    /// (`V2Walk::course`): below the members it went below, each member
    /// classified once, as it is handed out, with nothing classified ahead.
    pub fn v2_walk_along(&self, root: usize, activity: bool, course: Traversal) -> V2Walk<'_, 'a> {
        let Traversal { below, reached } = course;
        self.walk_from(root, activity, Course::Given, below, reached)
    }

    fn walk_from(
        &self,
        root: usize,
        activity: bool,
        course: Course,
        below: Bits,
        reached: usize,
    ) -> V2Walk<'_, 'a> {
        let stack = vec![Frame {
            children: self.children_of(self.id(root)),
            next: 0,
            level: 0,
            path_len: 0,
            named: true,
        }];
        let mut visited = Bits::default();
        if self.subagent_children_of(self.id(root)).next().is_some() {
            visited.set(root);
        }
        V2Walk {
            corpus: self,
            root: Some(root),
            course,
            below,
            reached,
            left: reached,
            stack,
            path: String::new(),
            visited,
            ready: std::collections::VecDeque::new(),
            activity,
        }
    }

    /// Whether the traversal can go on below `index`.
    fn leads_down(&self, index: usize) -> bool {
        self.subagent_children_of(self.id(index)).next().is_some()
    }

    /// A member classified from its log (its activity kept when asked).
    fn classify_member(&self, i: usize, keep_activity: bool) -> Classified {
        let live = self.live(i);
        if !keep_activity {
            let glance = self.listing_glance(i, Dialect::Seed001);
            return (classify(live, glance), live, None);
        }
        let rec = self.record(i);
        let inspected = inspect(&rec.log()).map(|mut inspection| {
            if let Some(recorded) = self.catalog_identity(i) {
                inspection.seed001 = Some(recorded.clone());
            }
            inspection
        });
        let seen = inspected
            .as_ref()
            .ok()
            .map(|i| Box::new(Activity::of(i, live)));
        (classify_inspected(&rec, live, inspected), live, seen)
    }

    /// Classify the members the traversal turns on (those with subagent
    /// children), one tree level at a time so each level's log reads run
    /// in parallel; count every member it reaches. The others (most of a
    /// wide tree) are classified as the walk hands them out, so their
    /// classes are never all held; so is what a walk that wants each log's
    /// activity reads of these.
    fn classify_reachable(&self, root: usize) -> (Classes, usize) {
        let mut kinds = Classes::default();
        let mut reached = 0;
        let mut seen = Bits::default();
        if self.leads_down(root) {
            seen.set(root);
        }
        let mut level: Vec<SessionPos> = Vec::new();
        let mut reach = |children: &mut dyn Iterator<Item = usize>, next: &mut Vec<SessionPos>| {
            for c in children {
                if seen.set(c) {
                    continue;
                }
                reached += 1;
                if self.leads_down(c) {
                    next.push(SessionPos::new(c));
                }
            }
        };
        reach(&mut self.subagent_children_of(self.id(root)), &mut level);
        let mut depth = 0;
        while !level.is_empty() {
            let mut next = Vec::new();
            // A level's reads run in parallel a batch at a time: the
            // results of a level of a million are never all held at once.
            for batch in level.chunks(WALK_BATCH) {
                let results = crate::support::parallel::par_map(batch, |i| {
                    self.classify_member(i.get(), false)
                });
                for (index, (kind, live, _)) in batch.iter().zip(results) {
                    if kind.is_traversed() {
                        reach(
                            &mut self.subagent_children_of(self.id(index.get())),
                            &mut next,
                        );
                    }
                    kinds.put(depth, index.get(), kind, live);
                }
            }
            level = next;
            depth += 1;
        }
        kinds.seal();
        (kinds, reached)
    }

    /// The member `index` would be in `root`'s v2 tree, found by checking
    /// only its own ancestry (each log read through the scan cache), or
    /// `None` when the traversal would not reach it. Sends use this so
    /// their cost does not grow with the tree or with log sizes.
    pub fn v2_member(&self, cache: &ScanCache, root: usize, index: usize) -> Option<Member> {
        self.v2_member_seen(cache, root, index, None)
    }

    /// `v2_member`, with the member's own log seen as `own` says when
    /// given (a title read from a large log's head), its ancestors read
    /// as usual.
    pub fn v2_member_seen(
        &self,
        cache: &ScanCache,
        root: usize,
        index: usize,
        own: Option<Glance>,
    ) -> Option<Member> {
        if index == root {
            return Some(self.root_member(root));
        }
        let classify_at = |i: usize| {
            let rec = self.record(i);
            let live = self.live(i);
            // A log read whole when it was located is not opened again.
            let kind = match self.store.peek_glance(i) {
                Some(glance) => classify(live, glance),
                None => classify_inspected(&rec, live, cache.inspect(&rec.log(), &rec.dir())),
            };
            (kind, live)
        };
        // Every session from `index` up to (not including) the root must be
        // a subagent, and every one strictly between must be traversed.
        let mut between = Vec::new();
        if !self.store.sessions.origin_subagent(index) {
            return None;
        }
        let mut reached = false;
        for ancestor in self.ancestors(index) {
            let a = ancestor.ok()?;
            if a == root {
                reached = true;
                break;
            }
            if !self.store.sessions.origin_subagent(a) {
                return None;
            }
            between.push(a);
        }
        if !reached {
            return None;
        }
        for ancestor in between.iter().rev() {
            if !classify_at(*ancestor).0.is_traversed() {
                return None;
            }
        }
        let (kind, live) = match own {
            Some(glance) => {
                let live = self.live(index);
                (classify(live, glance), live)
            }
            None => classify_at(index),
        };
        Some(Member {
            index,
            name: self.v2_name(root, index),
            kind,
            live,
            activity: None,
        })
    }

    /// Sessions whose full v2 name is `name`, walking header names down from
    /// the root by the one name rule (reachability is checked by the caller).
    pub(crate) fn v2_named(&self, root: usize, name: &str) -> Vec<usize> {
        super::name_path::walk(self, root, name, |_| {})
    }

    /// The one v2 resolver: `lead`, a name path, or else a Session id.
    /// Resolution grants no authority; the tools check that.
    /// The session of `root`'s tree whose id starts with `prefix` (at least
    /// `MIN_PREFIX` characters, no `/`): `Err` with every id when several do.
    fn member_by_prefix(&self, root: usize, prefix: &str) -> Result<Option<usize>, Vec<String>> {
        if prefix.chars().count() < super::error::MIN_PREFIX || prefix.contains('/') {
            return Ok(None);
        }
        let found: Vec<usize> = (0..self.store.sessions.len())
            .filter(|i| self.store.sessions.id(*i).starts_with(prefix))
            .filter(|i| self.root_of(*i).is_ok_and(|r| r == root))
            .collect();
        match found.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(*one)),
            many => Err(many.iter().map(|i| self.id(*i).to_string()).collect()),
        }
    }

    pub fn resolve_v2(&self, cache: &ScanCache, root: usize, agent: &str) -> Resolution {
        let named: Vec<Member> = self
            .v2_named(root, agent)
            .into_iter()
            .filter_map(|i| self.v2_member(cache, root, i))
            .collect();
        if named.len() > 1 {
            return Resolution::Ambiguous(
                named.iter().map(|m| self.id(m.index).to_string()).collect(),
            );
        }
        if let Some(member) = named.into_iter().next() {
            return Resolution::Member(member);
        }
        let index = match self.store.index_of(agent) {
            Some(i) => i,
            // The id prefix `tree` shows for an unnamed member: unique
            // among the members of this tree.
            None => match self.member_by_prefix(root, agent) {
                Ok(Some(i)) => i,
                Ok(None) => return Resolution::NotFound,
                Err(ids) => return Resolution::Ambiguous(ids),
            },
        };
        match self.v2_member(cache, root, index) {
            Some(m) => Resolution::Member(m),
            None => Resolution::Outside {
                index,
                same_root: self.root_of(index).is_ok_and(|r| r == root),
            },
        }
    }
}

/// The store's subagent edges, for the one name rule.
impl super::name_path::Children for Corpus<'_> {
    type Node = usize;

    fn named(&self, parent: &usize, segment: &str) -> Vec<usize> {
        let s = &self.store.sessions;
        self.subagent_children_of(self.id(*parent))
            .filter(|c| s.valid_name(*c) == Some(segment))
            .collect()
    }

    fn unnamed(&self, parent: &usize, segment: &str) -> Vec<usize> {
        let s = &self.store.sessions;
        self.subagent_children_of(self.id(*parent))
            .filter(|c| s.valid_name(*c).is_none() && s.id(*c) == segment)
            .collect()
    }
}

/// Why a session cannot run a turn (operator delivery, `serve`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotRunnable {
    OneShot,
    External,
    Unsupported,
    Corrupt,
    Unavailable,
}

impl NotRunnable {
    pub fn why(&self) -> &'static str {
        match self {
            NotRunnable::OneShot => "it is a one-shot subagent, which never runs another turn",
            NotRunnable::External => "it is an external execution",
            NotRunnable::Unsupported => "its subagent mode is not supported",
            NotRunnable::Corrupt => "it has no valid subagent descriptor",
            NotRunnable::Unavailable => "its session log cannot be read",
        }
    }
}

impl Corpus<'_> {
    /// Whether the session can run turns: a root (an ordinary session), or a
    /// continuable subagent whose log reads. Its own log is read, through
    /// the scan cache.
    pub fn runnable(&self, cache: &ScanCache, index: usize) -> Result<(), NotRunnable> {
        let rec = self.record(index);
        if !rec.header.origin_subagent {
            return Ok(());
        }
        match classify_inspected(
            &rec,
            self.live(index),
            cache.inspect(&rec.log(), &rec.dir()),
        ) {
            MemberKind::Root | MemberKind::Continuable { .. } | MemberKind::Creating => Ok(()),
            MemberKind::OneShot => Err(NotRunnable::OneShot),
            MemberKind::External => Err(NotRunnable::External),
            MemberKind::Unsupported => Err(NotRunnable::Unsupported),
            MemberKind::Corrupt => Err(NotRunnable::Corrupt),
            MemberKind::Unavailable => Err(NotRunnable::Unavailable),
        }
    }
}

/// A member's kind, liveness and (when kept) activity.
type Classified = (MemberKind, Liveness, Option<Box<Activity>>);

/// Members classified at once, in parallel.
const WALK_BATCH: usize = 4096;

/// A bit a session, up to the highest position set: a walk of a tree of
/// one session costs no bit for every session in the store (a store of a
/// million roots is walked a million times).
#[derive(Debug, Default)]
struct Bits(Vec<u64>);

impl Bits {
    fn get(&self, i: usize) -> bool {
        self.0
            .get(i / 64)
            .is_some_and(|w| w & (1u64 << (i % 64)) != 0)
    }

    /// Set bit `i`; whether it was set already.
    fn set(&mut self, i: usize) -> bool {
        let (word, bit) = (i / 64, 1u64 << (i % 64));
        if word >= self.0.len() {
            self.0.resize(word + 1, 0);
        }
        let was = self.0[word] & bit != 0;
        self.0[word] |= bit;
        was
    }
}

/// How a walk knows where to go below a member with subagent children.
enum Course {
    /// From the classes of those members, read level by level before.
    Ahead(Classes),
    /// From where an earlier walk of the tree went (`V2Walk::below`).
    Given,
}

/// Where a walk went: the members it went below, and how many it reached.
#[derive(Debug)]
pub struct Traversal {
    below: Bits,
    reached: usize,
}

/// The children of one member still to visit.
struct Frame<'c> {
    children: &'c [SessionPos],
    next: usize,
    /// The children's level below the root.
    level: usize,
    /// How much of `V2Walk::path` is the member's own name path.
    path_len: usize,
    /// Whether the member and every member above it has a name (else its
    /// children are named by their Session ids).
    named: bool,
}

/// The v2 pre-order walk of one tree (`Corpus::v2_walk`).
pub struct V2Walk<'c, 'a> {
    corpus: &'c Corpus<'a>,
    /// The root, until it is handed out first.
    root: Option<usize>,
    course: Course,
    /// The members gone below: noted as the walk goes ahead, followed when
    /// it is given.
    below: Bits,
    /// Members reached (not the root).
    reached: usize,
    /// Members reached and not yet handed out.
    left: usize,
    /// The members whose children are still to visit, root first: one
    /// frame a level, so the walk holds its depth, never a level's width.
    stack: Vec<Frame<'c>>,
    /// The name path of the deepest named frame's member (each frame
    /// knows how much of it is its own): names cost the depth once, not
    /// once a level.
    path: String,
    /// Members handed out (or made ready): a second path to one finds
    /// nothing.
    visited: Bits,
    /// The next members, classified, in order.
    ready: std::collections::VecDeque<Member>,
    activity: bool,
}

impl V2Walk<'_, '_> {
    /// Where the walk went, for a second walk of the tree to follow
    /// (`Corpus::v2_walk_along`); complete once the walk is.
    pub fn course(self) -> Traversal {
        Traversal {
            below: self.below,
            reached: self.reached,
        }
    }

    /// Make the next members ready, up to a batch, in parallel: those a
    /// walk going ahead classified already come classified, unless their
    /// logs' activity is wanted.
    fn fill(&mut self) {
        let corpus = self.corpus;
        let mut batch: Vec<(usize, String, Option<Classified>)> = Vec::new();
        while batch.len() < WALK_BATCH {
            let Some(top) = self.stack.last_mut() else {
                break;
            };
            let Some(&child) = top.children.get(top.next) else {
                self.stack.pop();
                if let Some(parent) = self.stack.last() {
                    self.path.truncate(parent.path_len);
                }
                continue;
            };
            top.next += 1;
            let (level, named) = (top.level, top.named);
            let index = child.get();
            if !corpus.store.sessions.origin_subagent(index) || self.visited.set(index) {
                continue;
            }
            let (class, down) = match &mut self.course {
                Course::Ahead(classified) => {
                    let class = classified
                        .take(level, index)
                        .or_else(|| {
                            corpus
                                .leads_down(index)
                                .then(|| corpus.classify_member(index, false))
                                .map(|(kind, live, _)| (kind, live))
                        })
                        .map(|(kind, live)| (kind, live, None));
                    let down = class.as_ref().is_some_and(|(kind, ..)| kind.is_traversed());
                    if down {
                        self.below.set(index);
                    }
                    (class, down)
                }
                Course::Given => (None, self.below.get(index)),
            };
            let sessions = &corpus.store.sessions;
            let step = sessions.valid_name(index).filter(|_| named);
            let name = match step {
                Some(step) if self.path.is_empty() => step.to_string(),
                Some(step) => format!("{}/{step}", self.path),
                None => sessions.id(index).to_string(),
            };
            if down {
                // The member's own path extends its parent's, so popping
                // its frame later truncates back to the parent's.
                if step.is_some() {
                    self.path.clone_from(&name);
                }
                self.stack.push(Frame {
                    children: corpus.children_of(sessions.id(index)),
                    next: 0,
                    level: level + 1,
                    path_len: self.path.len(),
                    named: step.is_some(),
                });
            }
            batch.push((index, name, class));
        }
        let activity = self.activity;
        let fresh = crate::support::parallel::par_map(&batch, |(index, _, class)| {
            (class.is_none() || activity).then(|| corpus.classify_member(*index, activity))
        });
        for ((index, name, class), fresh) in batch.into_iter().zip(fresh) {
            if let Some((kind, live, activity)) = fresh.or(class) {
                self.ready.push_back(Member {
                    index,
                    name,
                    kind,
                    live,
                    activity,
                });
            }
        }
    }
}

impl Iterator for V2Walk<'_, '_> {
    type Item = Member;

    fn next(&mut self) -> Option<Member> {
        if let Some(root) = self.root.take() {
            return Some(self.corpus.root_member(root));
        }
        if self.ready.is_empty() {
            self.fill();
        }
        let member = self.ready.pop_front()?;
        self.left = self.left.saturating_sub(1);
        Some(member)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.left + usize::from(self.root.is_some())))
    }
}
