//! The generated documentation the binary prints and the repository
//! commits: shell completions (`completions/`) and man pages (`man/`),
//! the latter with the exit status and environment sections clap lacks.

use super::args::Cli;
use crate::error::{Error, Result};

/// The completion script for `shell`, as committed under `completions/`.
pub fn completions(shell: clap_complete::Shell) -> String {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "dsh-agents", &mut buf);
    let script = String::from_utf8_lossy(&buf).into_owned();
    match shell {
        // clap_complete's bash script names a subcommand's state
        // `dsh__agents__subcmd__X` where it is set and
        // `dsh__subcmd__agents__subcmd__X` where it is read (the hyphen in
        // the binary's name), so no completion went past the first word.
        clap_complete::Shell::Bash => script.replace("dsh__subcmd__agents", "dsh__agents"),
        _ => script,
    }
}

/// The man page of the tool, or of one command, as committed under `man/`.
pub fn man_page(command: Option<&str>) -> Result<String> {
    use clap::CommandFactory;
    // The package version only: a committed page must not move with each commit.
    let mut cmd = Cli::command().version(env!("CARGO_PKG_VERSION"));
    cmd.build();
    let page = match command {
        None => cmd,
        Some(name) => {
            let sub = cmd
                .find_subcommand(name)
                .ok_or_else(|| {
                    let names: Vec<&str> = cmd.get_subcommands().map(|c| c.get_name()).collect();
                    Error::usage(format!(
                        "COMMAND: no command \"{name}\"{}",
                        crate::support::suggest::tip(name, names)
                    ))
                })?
                .clone();
            let full: &'static str = Box::leak(format!("dsh-agents-{name}").into_boxed_str());
            sub.name(full)
                .bin_name(full)
                .version(env!("CARGO_PKG_VERSION"))
        }
    };
    let mut buf = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut buf)
        .map_err(|e| Error::usage(format!("man page: {e}")))?;
    buf.extend_from_slice(MAN_EXIT_AND_ENVIRONMENT.as_bytes());
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// The EXIT STATUS and ENVIRONMENT sections every man page ends with.
const MAN_EXIT_AND_ENVIRONMENT: &str = r#".SH "EXIT STATUS"
.TP
\fB0\fR
Success, a \fBwait\-agent\fR that timed out included (its result says \fBtimedOut\fR).
.TP
\fB1\fR
A model tool's result is an error (the text the model would see is printed).
.TP
\fB2\fR
Usage: a bad argument, an unknown agent, a refused request; nothing was written.
.TP
\fB3\fR
The store or a file: a corrupt or unreadable store, a lock not had in time, an I/O error.
.TP
\fB130\fR, \fB143\fR
Stopped by SIGINT (Ctrl\-C) or SIGTERM.
.SH ENVIRONMENT
.TP
\fBDSH_STORE\fR
The store root (\fB\-\-store\fR); else \fB$DSH_HOME/sessions\fR, else \fB~/.dsh/sessions\fR.
.TP
\fBDSH_CONTRACT\fR
\fBv1\fR or \fBv2\fR (\fB\-\-contract\fR).
.TP
\fBDSH_AGENT\fR
The calling agent (\fB\-\-as\fR).
.TP
\fBDSH_LOCK_TIMEOUT\fR, \fBDSH_INBOX_MAX_PENDING\fR
The longest wait for an inbox lock, in seconds, and an inbox's admission bound.
.TP
\fBDSH_AGENTS_CACHE_DIR\fR
Where the name index lives (never inside the store); a cache never changes an answer.
.TP
\fBDSH_AGENTS_NOW_MS\fR
The time relative ages are shown against, in epoch milliseconds (for golden tests).
.TP
\fBDSH_AGENTS_READ_AHEAD\fR, \fBDSH_AGENTS_FULL_SCAN\fR
\fB0\fR turns reading logs ahead off; \fB1\fR scans the whole store instead of using its indexes. Diagnostics: the answers are the same.
"#;
