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
