//! What a v2 tree node is (`MemberKind`: the one classification every v2
//! view and tool decides by) and the mode the operator views show for it.
//! It holds no rule of how a node is classified (that is `v2`).

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

    /// Whether the node can send and receive messages (root or continuable).
    pub fn is_continuable(&self) -> bool {
        matches!(self, MemberKind::Root | MemberKind::Continuable { .. })
    }

    /// The mode column of the operator's tree view.
    pub fn mode(&self) -> RowMode {
        match self {
            MemberKind::Root => RowMode::Root,
            MemberKind::Continuable { .. } => RowMode::Continuable,
            MemberKind::OneShot => RowMode::OneShot,
            MemberKind::External => RowMode::External,
            MemberKind::Creating => RowMode::Creating,
            MemberKind::Corrupt | MemberKind::Unsupported | MemberKind::Unavailable => {
                RowMode::Unknown
            }
        }
    }
}

/// How a member runs, as the operator views show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowMode {
    Root,
    Continuable,
    OneShot,
    External,
    Creating,
    /// A diagnostic row: its log does not say.
    Unknown,
}

impl RowMode {
    pub fn as_str(self) -> &'static str {
        match self {
            RowMode::Root => "root",
            RowMode::Continuable => "continuable",
            RowMode::OneShot => "one-shot",
            RowMode::External => "external",
            RowMode::Creating => "creating",
            RowMode::Unknown => "-",
        }
    }
}
