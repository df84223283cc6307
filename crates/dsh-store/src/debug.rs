//! `DSH_AGENTS_DEBUG=1`: one stderr line naming which road a command took
//! into the store (the sessions it located by path, or the whole store and
//! why), as ripgrep's `--debug` says why it skipped a file. Said by the code
//! that decides, once; never part of a command's output.

/// Whether plan lines are wanted.
pub fn enabled() -> bool {
    std::env::var_os("DSH_AGENTS_DEBUG").is_some_and(|v| v == "1")
}

/// Say the plan `line` describes, when wanted (built only then).
pub fn plan(line: impl FnOnce() -> String) {
    if enabled() {
        eprintln!("debug: plan: {}", line());
    }
}
