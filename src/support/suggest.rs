//! "Did you mean": the closest of a set of known words to a mistyped one,
//! by edit distance, as clap suggests a subcommand. One rule for every
//! place the tool names what it accepts (man topics, tool names).

/// The candidate nearest to `typed`, when it is near enough to be a typo:
/// at most a third of the longer word's characters apart (at least 1).
pub fn closest<'a>(typed: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (distance(typed, c), c))
        .filter(|(d, c)| *d <= (typed.chars().count().max(c.chars().count()) / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// ` (did you mean "X"?)` for `closest`, or nothing.
pub fn tip<'a>(typed: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(typed, candidates).map_or(String::new(), |c| format!(" (did you mean \"{c}\"?)"))
}

/// Levenshtein distance over characters.
pub fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(here).min(row[j])
            };
            prev = here;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_only_near_words() {
        let words = ["tree", "trace", "list_agents", "send_message"];
        for (typed, want) in [
            ("tre", Some("tree")),
            ("list_agent", Some("list_agents")),
            ("send_mesage", Some("send_message")),
            ("trac", Some("trace")),
            ("zzzz", None),
            ("", None),
        ] {
            assert_eq!(closest(typed, words), want, "{typed}");
        }
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
