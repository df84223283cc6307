//! The top-level `--help` lists the commands in groups (model tools,
//! operator views and actions, runtime, setup), as `cargo` and `jj` do:
//! clap lists subcommands under one heading, so the list is rendered here
//! and put into the help template. Parsing and completions are unchanged.

/// Each command's group, in the order the help shows them.
const GROUPS: &[(&str, &[&str])] = &[
    (
        "Model tools (the text a model sees)",
        &[
            "list-agents",
            "send-message",
            "subagent-send-message",
            "subagent-parent-message",
            "interrupt-agent",
            "wait-agent",
            "identity",
            "call",
        ],
    ),
    (
        "Operator: look",
        &[
            "tree", "top", "events", "log", "inbox", "trace", "usage", "export", "check",
        ],
    ),
    (
        "Operator: act as the user",
        &["followup", "steer", "interrupt", "cancel", "watch"],
    ),
    (
        "Runtime: run agents",
        &["spawn", "serve", "claim", "bridge"],
    ),
    ("Many hosts", &["fleet"]),
    ("Setup", &["completions", "man", "help"]),
];

/// `cmd` with its command list grouped in its help.
pub fn grouped(cmd: clap::Command) -> clap::Command {
    let width = crate::operator::table::terminal_width()
        .unwrap_or(100)
        .clamp(60, 120);
    let list = listing(&cmd, width);
    cmd.help_template(format!(
        "{{before-help}}{{about-with-newline}}\n{{usage-heading}} {{usage}}\n\n{list}Options:\n{{options}}{{after-help}}"
    ))
}

/// The grouped command list, each group under its heading, each command's
/// summary wrapped to `width` beside its name.
fn listing(cmd: &clap::Command, width: usize) -> String {
    let about = |name: &str| -> String {
        if name == "help" {
            return "Print this message or the help of the given command(s)".to_string();
        }
        cmd.find_subcommand(name)
            .and_then(|c| c.get_about())
            .map(|a| a.to_string())
            .unwrap_or_default()
    };
    let names = GROUPS.iter().flat_map(|(_, names)| names.iter());
    let pad = names.map(|n| n.len()).max().unwrap_or(0) + 4;
    let mut out = String::new();
    for (heading, names) in GROUPS {
        out.push_str(heading);
        out.push_str(":\n");
        for name in *names {
            let text = about(name);
            let mut line = format!("  {name:<0$}", pad - 2);
            let room = width.saturating_sub(pad).max(20);
            let mut used = 0;
            for word in text.split_whitespace() {
                if used > 0 && used + 1 + word.len() > room {
                    out.push_str(line.trim_end());
                    out.push('\n');
                    line = " ".repeat(pad);
                    used = 0;
                }
                if used > 0 {
                    line.push(' ');
                    used += 1;
                }
                line.push_str(word);
                used += word.len();
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn every_command_is_in_exactly_one_group() {
        let cmd = crate::cli::args::Cli::command();
        let mut listed: Vec<&str> = GROUPS.iter().flat_map(|(_, n)| n.iter().copied()).collect();
        let count = listed.len();
        listed.sort_unstable();
        listed.dedup();
        assert_eq!(listed.len(), count, "a command in two groups");
        let mut commands: Vec<&str> = cmd
            .get_subcommands()
            .map(|c| c.get_name())
            .chain(["help"])
            .collect();
        commands.sort_unstable();
        assert_eq!(listed, commands);
    }

    #[test]
    fn the_listing_wraps_under_its_names() {
        let cmd = crate::cli::args::Cli::command();
        let text = listing(&cmd, 60);
        assert!(text.starts_with("Model tools"), "{text}");
        for line in text.lines() {
            assert!(line.chars().count() <= 60, "{line}");
        }
        assert!(text.contains("\n  tree "), "{text}");
    }
}
