//! The one v2 name rule, written once: a name path walks down from a root
//! a segment at a time; a segment is a child's name, or — where no child
//! has that name — an unnamed child's Session id (what `tree` and the
//! listing show for it), so `<childId>/<grandchildId>` walks the same
//! path. A name wins over an id. `lead` (the root's name) is the root.
//!
//! Invariant: the resolver (`Corpus::v2_named`) and the name index's
//! lookup of which sessions to read (`name_lookup`) walk with this one
//! function; they differ only in where a parent's children come from.
//! And a name's last step (`last_step`), which `tree`, `usage`, the fleet's
//! tree and the operator's bare-step lookup all take from here: an unnamed
//! member's id stays whole even when it holds a `/`.

use dsh_store::format::ROOT_NAME;

/// The last step of a member's v2 `name` (what `tree` shows beside its
/// drawing): an unnamed member's name is its whole Session `id`, which may
/// hold a `/`; a name path's last step follows its last `/`.
pub fn last_step<'n>(name: &'n str, id: &str) -> &'n str {
    if name == id {
        return name;
    }
    name.rsplit('/').next().unwrap_or(name)
}

/// Where a walk finds a parent's children.
pub trait Children {
    type Node: Clone;
    /// `parent`'s children named `segment`.
    fn named(&self, parent: &Self::Node, segment: &str) -> Vec<Self::Node>;
    /// `parent`'s unnamed children whose Session id is `segment`.
    fn unnamed(&self, parent: &Self::Node, segment: &str) -> Vec<Self::Node>;
}

/// The sessions whose full v2 name below `root` is `name`; `each_level` is
/// handed every level's sessions as the walk reaches them.
pub fn walk<C: Children>(
    children: &C,
    root: C::Node,
    name: &str,
    mut each_level: impl FnMut(&[C::Node]),
) -> Vec<C::Node> {
    if name == ROOT_NAME {
        return vec![root];
    }
    let mut current = vec![root];
    for segment in name.split('/') {
        let mut next: Vec<C::Node> = current
            .iter()
            .flat_map(|p| children.named(p, segment))
            .collect();
        if next.is_empty() {
            next = current
                .iter()
                .flat_map(|p| children.unnamed(p, segment))
                .collect();
        }
        each_level(&next);
        current = next;
        if current.is_empty() {
            break;
        }
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_last_step_is_a_whole_id_or_the_end_of_a_path() {
        for (name, id, step) in [
            ("reviewer/checker", "chk-1", "checker"),
            ("reviewer", "rev-1", "reviewer"),
            ("lead", "root", "lead"),
            // Unnamed: its name is its id, slashes and all.
            ("team/x", "team/x", "team/x"),
            ("a-1", "a-1", "a-1"),
        ] {
            assert_eq!(last_step(name, id), step, "{name} ({id})");
        }
    }

    /// A tree as (id, parent, name) rows.
    struct Rows(&'static [(&'static str, &'static str, Option<&'static str>)]);

    impl Children for Rows {
        type Node = &'static str;
        fn named(&self, parent: &&'static str, segment: &str) -> Vec<&'static str> {
            let rows = self.0.iter();
            rows.filter(|(_, p, n)| p == parent && *n == Some(segment))
                .map(|r| r.0)
                .collect()
        }
        fn unnamed(&self, parent: &&'static str, segment: &str) -> Vec<&'static str> {
            let rows = self.0.iter();
            rows.filter(|(id, p, n)| p == parent && n.is_none() && *id == segment)
                .map(|r| r.0)
                .collect()
        }
    }

    #[test]
    fn names_walk_down_and_ids_stand_in_for_unnamed_children() {
        let tree = Rows(&[
            ("rev", "root", Some("reviewer")),
            ("chk", "rev", Some("checker")),
            ("anon", "root", None),
            ("deep", "anon", Some("helper")),
            // A child named like an unnamed sibling's id: the name wins.
            ("named-anon", "root", Some("anon2")),
            ("anon2", "root", None),
            ("twin-a", "root", Some("twin")),
            ("twin-b", "root", Some("twin")),
        ]);
        for (name, want) in [
            ("lead", &["root"][..]),
            ("reviewer", &["rev"]),
            ("reviewer/checker", &["chk"]),
            ("anon", &["anon"]),
            ("anon/helper", &["deep"]),
            ("anon2", &["named-anon"]),
            ("twin", &["twin-a", "twin-b"]),
            ("reviewer/nobody", &[]),
            ("nobody/checker", &[]),
            // A named child's id is not a segment.
            ("rev", &[]),
        ] {
            assert_eq!(walk(&tree, "root", name, |_| {}), want, "{name}");
        }
        let mut levels = Vec::new();
        walk(&tree, "root", "anon/helper", |l| levels.push(l.to_vec()));
        assert_eq!(levels, [vec!["anon"], vec!["deep"]]);
    }
}
