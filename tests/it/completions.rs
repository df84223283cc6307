//! The committed completions under `completions/` are exactly what the
//! binary generates; a drift fails here.

use crate::common::{repo, run};

#[test]
fn committed_completions_match_the_binary() {
    for (shell, file) in [
        ("bash", "dsh-agents.bash"),
        ("zsh", "_dsh-agents"),
        ("fish", "dsh-agents.fish"),
        ("elvish", "dsh-agents.elv"),
        ("powershell", "_dsh-agents.ps1"),
    ] {
        let r = run(["completions", shell]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(
            r.stdout.contains("list-agents"),
            "{shell} completions name the commands"
        );
        let path = repo().join("completions").join(file);
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == r.stdout,
            "{} drifted from the binary; regenerate it with `dsh-agents completions {shell} > completions/{file}`",
            path.display()
        );
    }
}

/// Every command `--help` lists, by name.
fn commands() -> Vec<String> {
    let help = crate::common::cmd()
        .env("COLUMNS", "400")
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    // The commands are listed in groups between the usage line and the
    // options, each as two spaces and its name.
    let commands: Vec<String> = help
        .lines()
        .skip_while(|l| !l.starts_with("Usage:"))
        .take_while(|l| !l.starts_with("Options:"))
        .filter(|l| l.starts_with("  ") && l.as_bytes().get(2).is_some_and(u8::is_ascii_lowercase))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect();
    assert!(
        commands.iter().any(|c| c == "log") && commands.iter().any(|c| c == "man"),
        "{help}"
    );
    commands
}

/// Each command's `--help` ends with examples of that command itself (an
/// example block given to the wrong command once left `inbox` and `usage`
/// with none, and `export` showing only its second).
#[test]
fn every_command_help_shows_its_own_examples() {
    for c in commands() {
        let r = run([c.as_str(), "--help"]);
        assert_eq!(r.code, 0, "{c}: {}", r.stderr);
        let examples: Vec<&str> = r
            .stdout
            .split("Examples:\n")
            .skip(1)
            .flat_map(|block| block.lines().take_while(|l| l.starts_with("  ")))
            .collect();
        assert_eq!(
            r.stdout.matches("Examples:").count(),
            1,
            "{c}: one example block\n{}",
            r.stdout
        );
        assert!(!examples.is_empty(), "{c}: no examples\n{}", r.stdout);
        // An example names its command (after `dsh-agents` and any global
        // options), and the bridge's is the plugin's one line.
        let own = examples
            .iter()
            .all(|e| e.split_whitespace().any(|w| w == c));
        assert!(own, "{c}: examples of another command: {examples:?}");
    }
}

/// The committed man pages under `man/` are what `dsh-agents man` prints:
/// one for the tool and one per command, none missing, none stale.
#[test]
fn committed_man_pages_match_the_binary() {
    let commands = commands();
    let mut expected = vec![("dsh-agents.1".to_string(), run(["man"]))];
    for c in &commands {
        expected.push((format!("dsh-agents-{c}.1"), run(["man", c.as_str()])));
    }
    let mut committed: Vec<String> = std::fs::read_dir(repo().join("man"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    committed.sort();
    let mut names: Vec<String> = expected.iter().map(|(n, _)| n.clone()).collect();
    names.sort();
    assert_eq!(committed, names, "man/ holds one page per command");
    for (file, r) in expected {
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(r.stdout.starts_with(".ie"), "{file} is roff");
        assert!(
            r.stdout.contains(".SH \"EXIT STATUS\"") && r.stdout.contains(".SH ENVIRONMENT"),
            "{file} says what its exit codes and environment variables mean"
        );
        let on_disk = std::fs::read_to_string(repo().join("man").join(&file)).unwrap();
        assert!(
            on_disk == r.stdout,
            "man/{file} drifted; regenerate with `dsh-agents man {} > man/{file}`",
            file.trim_start_matches("dsh-agents")
                .trim_start_matches('-')
                .trim_end_matches(".1")
        );
    }
}

#[test]
fn version_names_the_commit() {
    let r = run(["--version"]);
    assert_eq!(r.code, 0);
    let v = r.stdout.trim();
    assert!(
        v.starts_with(concat!("dsh-agents ", env!("CARGO_PKG_VERSION"), " (")),
        "{v}"
    );
    assert!(v.ends_with(')'), "{v}");
}

/// What bash completes for the words typed so far (the last one being
/// completed), with the committed script sourced as a user's shell does.
fn complete(words: &[&str]) -> Vec<String> {
    let script = repo().join("completions/dsh-agents.bash");
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let n = words.len();
    let body = format!(
        "source '{}'; COMP_WORDS=({}); COMP_CWORD={}; _dsh__agents dsh-agents '{}' '{}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        quoted.join(" "),
        n - 1,
        words[n - 1],
        words[n - 2],
    );
    let out = std::process::Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &body])
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn bash_completes_past_the_first_word() {
    // A subcommand's own flags.
    let flags = complete(&["dsh-agents", "tree", "--"]);
    for want in ["--problems", "--live", "--width"] {
        assert!(flags.iter().any(|f| f == want), "{want} in {flags:?}");
    }
    // A flag's values.
    assert_eq!(complete(&["dsh-agents", "--contract", ""]), ["v1", "v2"]);
    // The subcommands themselves.
    let cmds = complete(&["dsh-agents", "lis"]);
    assert_eq!(cmds, ["list-agents"]);
}
