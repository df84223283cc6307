//! Member names held as steps: a v2 name below a named member is that
//! member's name, a slash and one step, so a listing keeps each step once
//! and writes the paths out as it renders them. A 10,000-deep chain then
//! holds 10,000 steps, not 10,000 paths of up to 10,000 steps each.

/// A name taken into a `Names`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NameRef(u32);

#[derive(Debug, Clone, Copy)]
struct Step {
    /// The step above, or `NONE` for a name held whole.
    parent: u32,
    start: u32,
    len: u32,
}

const NONE: u32 = u32::MAX;

/// The names of one walk, taken in its pre-order.
#[derive(Debug, Clone, Default)]
pub struct Names {
    steps: Vec<Step>,
    text: String,
    /// The newest name with `k` slashes, by `k`: in pre-order, the member
    /// above a path with `k + 1` slashes.
    newest: Vec<u32>,
}

impl Names {
    /// Take `name`, a member's name in pre-order after its parent's.
    pub fn take(&mut self, name: &str) -> NameRef {
        let slashes = name.bytes().filter(|b| *b == b'/').count();
        let (parent, step) = match name.rsplit_once('/') {
            // Trusted only when the step above is what the path says it is:
            // else the name is held whole (the text is the same).
            Some((above, step)) => match self.newest.get(slashes - 1) {
                Some(&p) if self.tail(p) == above.rsplit('/').next().unwrap_or(above) => (p, step),
                _ => (NONE, name),
            },
            None => (NONE, name),
        };
        let (Ok(start), Ok(len), Ok(at)) = (
            u32::try_from(self.text.len()),
            u32::try_from(step.len()),
            u32::try_from(self.steps.len()),
        ) else {
            return NameRef(NONE);
        };
        if at == NONE {
            return NameRef(NONE);
        }
        self.text.push_str(step);
        self.steps.push(Step { parent, start, len });
        if self.newest.len() <= slashes {
            self.newest.resize(slashes + 1, NONE);
        }
        self.newest[slashes] = at;
        NameRef(at)
    }

    fn last_step(&self, at: u32) -> &str {
        let s = self.steps[at as usize];
        &self.text[s.start as usize..(s.start + s.len) as usize]
    }

    /// The last segment of what `at` holds (a name held whole may be a path).
    fn tail(&self, at: u32) -> &str {
        let whole = self.last_step(at);
        whole.rsplit('/').next().unwrap_or(whole)
    }

    /// Append the whole name `r` stands for to `out`.
    pub fn write(&self, r: NameRef, out: &mut String) {
        let mut up = Vec::new();
        let mut at = r.0;
        while at != NONE {
            up.push(at);
            at = self.steps[at as usize].parent;
        }
        for (n, at) in up.iter().rev().enumerate() {
            if n > 0 {
                out.push('/');
            }
            out.push_str(self.last_step(*at));
        }
    }

    /// The whole name `r` stands for.
    pub fn name(&self, r: NameRef) -> String {
        let mut s = String::new();
        self.write(r, &mut s);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_back_as_they_were_taken() {
        // Pre-order with an unnamed member (its id) between a named parent
        // and its named child, a deep path, and a second top-level name.
        let cases: &[&[&str]] = &[
            &[
                "lead", "a", "sa-1", "a/b", "a/b/c", "a/b/c/d", "a/e", "f", "f/g",
            ],
            &["lead", "sa-1", "sa-1/x"],
            &["lead", "a", "a/b", "x", "a/b/c"],
            &["lead", "a/b/c"],
            &["lead", "a/b", "a/b/c", "a/b/c/d"],
        ];
        for case in cases {
            let mut names = Names::default();
            let refs: Vec<NameRef> = case.iter().map(|n| names.take(n)).collect();
            for (r, n) in refs.iter().zip(case.iter()) {
                assert_eq!(names.name(*r), *n, "{case:?}");
            }
        }
    }

    #[test]
    fn a_chain_holds_each_step_once() {
        let mut names = Names::default();
        let mut path = String::from("n0");
        let mut last = names.take(&path);
        for i in 1..1000 {
            path = format!("{path}/n{i}");
            last = names.take(&path);
        }
        assert_eq!(names.name(last), path);
        assert!(names.text.len() < 5000, "{}", names.text.len());
    }
}
