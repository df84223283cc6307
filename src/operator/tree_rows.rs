//! `tree`'s rows: one root's agents in pre-order as the v2 walk hands
//! them over, each with its depth, state, mode, activity and pending inbox
//! count (read in parallel a batch at a time). Nothing here holds a tree:
//! what a view keeps of the rows is the view's choice.

use crate::inbox::Inbox;
use crate::inbox::liveness::{self, LiveState, Liveness};
use crate::tree::Corpus;
use crate::tree::v2::{Activity, MemberKind, RowMode, Traversal, V2Walk, classify_inspected};
use dsh_store::files::current_log;
use dsh_store::log::inspect;
use dsh_store::set::has_catalogs;
use dsh_store::{SessionPos, Store};

/// An agent's state for the operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// A resident process is mid-turn.
    Running,
    /// A resident process waits for input.
    Idle,
    Inactive,
    /// Live without a descriptor yet.
    Creating,
    /// A diagnostic: the log cannot be used.
    Corrupt,
    Unsupported,
    Unavailable,
    /// Its lock cannot be probed: maybe live.
    Unknown,
    /// Not live, and DSH cannot resume its log (it refuses a splice of its
    /// own inbox): what `check` calls an error.
    Unresumable,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Running => "running",
            State::Idle => "idle",
            State::Inactive => "inactive",
            State::Creating => "creating",
            State::Corrupt => "corrupt",
            State::Unsupported => "unsupported",
            State::Unavailable => "unavailable",
            State::Unknown => "unknown",
            State::Unresumable => "unresumable",
        }
    }

    /// Every state, for a word read back (another host's row).
    pub const ALL: [State; 9] = [
        State::Running,
        State::Idle,
        State::Inactive,
        State::Creating,
        State::Corrupt,
        State::Unsupported,
        State::Unavailable,
        State::Unknown,
        State::Unresumable,
    ];

    /// The state `word` names.
    pub fn of_word(word: &str) -> Option<State> {
        State::ALL.into_iter().find(|s| s.as_str() == word)
    }

    pub fn is_problem(self) -> bool {
        matches!(
            self,
            State::Corrupt
                | State::Unsupported
                | State::Unavailable
                | State::Unknown
                | State::Unresumable
        )
    }

    /// `of`, and an inactive session whose log DSH cannot resume is that
    /// problem.
    fn with(kind: &MemberKind, live: Liveness, activity: Option<&Activity>) -> State {
        match State::of(kind, live) {
            State::Inactive if activity.is_some_and(|a| a.native_error) => State::Unresumable,
            s => s,
        }
    }

    fn of(kind: &MemberKind, live: Liveness) -> State {
        match (kind, live) {
            (MemberKind::Corrupt, _) => State::Corrupt,
            (MemberKind::Unsupported, _) => State::Unsupported,
            (MemberKind::Unavailable, _) => State::Unavailable,
            (MemberKind::Creating, _) => State::Creating,
            (
                _,
                Liveness::Live {
                    state: LiveState::Running,
                },
            ) => State::Running,
            (_, Liveness::Live { .. }) => State::Idle,
            (_, Liveness::Unknown) => State::Unknown,
            _ => State::Inactive,
        }
    }
}

/// One agent of a tree, as the walk made it: its facts and its two texts.
/// A new column's value is a field of `Facts`: a held block keeps the
/// facts as they are and only holds the texts its own way.
#[derive(Debug, Clone)]
pub struct Row {
    pub facts: Facts,
    /// The v2 name path.
    pub name: String,
    pub label: String,
}

/// What a row says besides its name and label.
#[derive(Debug, Clone)]
pub struct Facts {
    /// The session's position in the store.
    pub index: SessionPos,
    /// The parent session's position.
    pub parent: Option<SessionPos>,
    pub depth: u32,
    pub state: State,
    pub mode: RowMode,
    pub activity: Option<Box<Activity>>,
    /// Pending inbox messages; `None` when the inbox cannot be read.
    pub pending: Option<u32>,
}

// A row reads as its facts (`row.state`), as every cell and view reads it.
impl std::ops::Deref for Row {
    type Target = Facts;
    fn deref(&self) -> &Facts {
        &self.facts
    }
}

impl std::ops::DerefMut for Row {
    fn deref_mut(&mut self) -> &mut Facts {
        &mut self.facts
    }
}

impl Row {
    /// The last step of its name (what `tree` shows beside its drawing);
    /// `id`: its Session id.
    pub fn step(&self, id: &str) -> &str {
        crate::tree::name_path::last_step(&self.name, id)
    }

    /// Its own tokens, and whether its log could not be read.
    pub fn own_tokens(&self) -> (u64, bool) {
        self.activity
            .as_ref()
            .map_or((0, true), |a| (a.tokens().total(), false))
    }
}

/// The root's row, read from its log (the walk's root member carries no
/// activity), and the session's title.
pub fn root_row(corpus: &Corpus, root: usize) -> (Row, Option<String>) {
    let inspection = inspect(&corpus.record(root).log()).ok();
    let live = corpus.live(root);
    let mut row = Row {
        facts: Facts {
            index: SessionPos::new(root),
            parent: None,
            depth: 0,
            // A root log DSH itself could not reopen is a problem, not an
            // inactive root.
            state: match inspection {
                Some(ref i) => State::with(&MemberKind::Root, live, Some(&Activity::of(i, live))),
                None => State::Unavailable,
            },
            mode: MemberKind::Root.mode(),
            activity: inspection.as_ref().map(|i| Box::new(Activity::of(i, live))),
            pending: None,
        },
        name: dsh_store::format::ROOT_NAME.to_string(),
        label: String::new(),
    };
    row.pending = pending(corpus, &row);
    (row, inspection.and_then(|i| i.title))
}

/// `old` (a row of a tree drawn earlier from `store`) as its session's
/// files say now, with the title when it is its tree's root; `None` when
/// what changed is more than a row can say — its log replaced (another
/// generation, compressed), its kind changed (a descriptor that appeared,
/// a log gone corrupt: the walk below it may change), or a generation
/// whose parents' catalogs name their children — and the tree must be
/// read again. Liveness and the inbox are read afresh, not from the
/// listing the store was opened with.
pub fn row_now(store: &Store, old: &Row) -> Option<(Row, Option<String>)> {
    let i = old.index.get();
    let s = &store.sessions;
    if has_catalogs(s.generation(i))
        || old
            .parent
            .is_some_and(|p| has_catalogs(s.generation(p.get())))
    {
        return None;
    }
    let rec = s.record(i);
    if current_log(&rec.dir()).as_deref() != Some(rec.log().as_path()) {
        return None;
    }
    let live = liveness::probe(&rec.dir());
    let inspected = inspect(&rec.log());
    let title = inspected.as_ref().ok().and_then(|i| i.title.clone());
    let activity = inspected
        .as_ref()
        .ok()
        .map(|i| Box::new(Activity::of(i, live)));
    let kind = if old.parent.is_none() {
        MemberKind::Root
    } else {
        classify_inspected(&rec, live, inspected)
    };
    let was_plain =
        !old.state.is_problem() || matches!(old.state, State::Unknown | State::Unresumable);
    let state = match (&kind, &activity) {
        (MemberKind::Root, None) => State::Unavailable,
        _ => State::with(&kind, live, activity.as_deref()),
    };
    let plain = match kind {
        MemberKind::Root => true,
        MemberKind::Continuable { .. } => was_plain && old.state != State::Creating,
        _ => false,
    };
    if !plain || kind.mode() != old.mode {
        return None;
    }
    let mut row = Row {
        facts: Facts {
            state,
            activity,
            pending: None,
            ..old.facts.clone()
        },
        name: old.name.clone(),
        label: match kind {
            MemberKind::Continuable { label } => label,
            _ => String::new(),
        },
    };
    row.pending = Inbox::new(&rec.dir())
        .waiting_now()
        .ok()
        .map(|n| u32::try_from(n).unwrap_or(u32::MAX));
    Some((row, title))
}

/// Its inbox count; 0 when the store's listing of its directory saw no
/// inbox (the snapshot its liveness comes from too), with no call made.
fn pending(corpus: &Corpus, row: &Row) -> Option<u32> {
    if corpus.store.sessions.inbox_seen_absent(row.index.get()) {
        return Some(0);
    }
    Inbox::new(&corpus.store.sessions.dir(row.index.get()))
        .waiting_now()
        .ok()
        .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
}

/// Rows made ready at once: their inbox counts are read in parallel.
const BATCH: usize = 4096;

/// One root's rows in pre-order, the root's first.
pub struct Rows<'c, 'a> {
    corpus: &'c Corpus<'a>,
    root: usize,
    first: Option<Row>,
    walk: V2Walk<'c, 'a>,
    /// Members come in pre-order: a member's parent is on the path from
    /// the root to the member before it (position, depth).
    path: Vec<(usize, u32)>,
    ready: std::collections::VecDeque<Row>,
}

impl<'c, 'a> Rows<'c, 'a> {
    /// `first`, the root's row (`root_row`), and the rows below it.
    pub fn new(corpus: &'c Corpus<'a>, first: Row) -> Rows<'c, 'a> {
        let walk = corpus.v2_walk(first.index.get(), true);
        Rows::of(corpus, first, walk)
    }

    /// The rows again, where the walk that made them went (`course`).
    pub fn along(corpus: &'c Corpus<'a>, first: Row, course: Traversal) -> Rows<'c, 'a> {
        let walk = corpus.v2_walk_along(first.index.get(), true, course);
        Rows::of(corpus, first, walk)
    }

    /// Where the walk went, once every row was made.
    pub fn course(self) -> Traversal {
        self.walk.course()
    }

    fn of(corpus: &'c Corpus<'a>, first: Row, mut walk: V2Walk<'c, 'a>) -> Rows<'c, 'a> {
        let root = first.index.get();
        // The walk hands out the root first, without its activity.
        walk.next();
        Rows {
            corpus,
            root,
            first: Some(first),
            walk,
            path: vec![(root, 0)],
            ready: std::collections::VecDeque::new(),
        }
    }

    fn fill(&mut self) {
        let corpus = self.corpus;
        let mut batch = Vec::with_capacity(BATCH);
        for m in self.walk.by_ref().take(BATCH) {
            let parent = corpus.parent_of(m.index);
            let on_path = parent.and_then(|p| self.path.iter().rposition(|(i, _)| *i == p));
            let depth = if let Some(at) = on_path {
                self.path.truncate(at + 1);
                self.path[at].1.saturating_add(1)
            } else {
                let up = corpus
                    .ancestors(m.index)
                    .take_while(|a| a.as_ref().is_ok_and(|a| *a != self.root))
                    .count();
                u32::try_from(up).map_or(u32::MAX, |up| up.saturating_add(1))
            };
            self.path.push((m.index, depth));
            let label = match &m.kind {
                MemberKind::Continuable { label } => label.clone(),
                _ => String::new(),
            };
            batch.push(Row {
                facts: Facts {
                    index: SessionPos::new(m.index),
                    parent: parent.map(SessionPos::new),
                    depth,
                    state: State::with(&m.kind, m.live, m.activity.as_deref()),
                    mode: m.kind.mode(),
                    activity: m.activity,
                    pending: None,
                },
                name: m.name,
                label,
            });
        }
        let counts = crate::support::parallel::par_map(&batch, |r| pending(corpus, r));
        for (mut row, count) in batch.into_iter().zip(counts) {
            row.pending = count;
            self.ready.push_back(row);
        }
    }
}

impl Iterator for Rows<'_, '_> {
    type Item = Row;

    fn next(&mut self) -> Option<Row> {
        if let Some(first) = self.first.take() {
            return Some(first);
        }
        if self.ready.is_empty() {
            self.fill();
        }
        self.ready.pop_front()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let (_, walk) = self.walk.size_hint();
        let more = self.ready.len() + usize::from(self.first.is_some());
        (more, walk.map(|w| w + more))
    }
}
