//! `HOST:AGENT`: an agent on another host of the fleet. A bare AGENT (or a
//! prefix that is not a host name) is the local host's.

/// An agent argument, split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Address<'a> {
    pub host: Option<&'a str>,
    pub agent: &'a str,
}

/// Host names are NATS subject tokens and file-name safe: ASCII letters,
/// digits, `-` and `_`, at most 64 bytes.
pub fn valid_host(host: &str) -> bool {
    !host.is_empty()
        && host.len() <= 64
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

impl<'a> Address<'a> {
    pub fn parse(text: &'a str) -> Address<'a> {
        match text.split_once(':') {
            Some((host, agent)) if valid_host(host) && !agent.is_empty() => Address {
                host: Some(host),
                agent,
            },
            _ => Address {
                host: None,
                agent: text,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_prefixes() {
        let cases: &[(&str, Option<&str>, &str)] = &[
            ("reviewer", None, "reviewer"),
            ("b:reviewer", Some("b"), "b:reviewer"),
            (
                "ci-runner_2:lead/reviewer",
                Some("ci-runner_2"),
                "lead/reviewer",
            ),
            (":reviewer", None, ":reviewer"),
            ("b:", None, "b:"),
            ("a b:x", None, "a b:x"),
            ("a.b:x", None, "a.b:x"),
        ];
        for (text, host, agent) in cases {
            let a = Address::parse(text);
            assert_eq!(a.host, *host, "{text}");
            let want = if host.is_some() {
                text.split_once(':').map(|(_, a)| a).unwrap_or(agent)
            } else {
                agent
            };
            assert_eq!(a.agent, want, "{text}");
        }
        assert!(!valid_host(&"h".repeat(65)));
    }
}
