//! Benchmark: generate a synthetic DSH store and time `list-agents` in each
//! form (and `tree`). Timing and memory are measured here, never asserted in
//! tests.
//!
//!   cargo run --release --example bench -- [--sessions N] [--fanout F]
//!       [--events E] [--compression none|zstd] [--runs R] [--dir DIR]
//!
//! Each form runs in a fresh child process (this program re-invoked with
//! `--measure`), so its peak resident memory (VmHWM) is its own.

#![allow(clippy::unwrap_used)] // a test or a benchmark stops at its first surprise
#![allow(unsafe_code)] // `wait4` for a child's peak resident size

use clap::Parser;
use dsh_agents::formats::encode_frame;
use dsh_agents::{Cli, Output};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[derive(Parser)]
struct Args {
    #[arg(long, default_value_t = 10_000)]
    sessions: usize,
    #[arg(long, default_value_t = 8)]
    fanout: usize,
    /// Extra user messages per child log (about 130 bytes each)
    #[arg(long, default_value_t = 0)]
    events: usize,
    #[arg(long, default_value = "none")]
    compression: String,
    /// Session ids that sort in no tree order (as DSH's random UUIDs do),
    /// not `sa-0000000` upwards, where every parent sorts before its children
    #[arg(long)]
    random_ids: bool,
    /// The logs' format generation: 0 writes `session.jsonl` (rc.8), N
    /// writes `session.vN.jsonl` with its closed header (`version` N,
    /// `isSeeded`, no `name`) and version-3 descriptors
    #[arg(long, default_value_t = 0)]
    generation: u32,
    /// Each child's turn also holds one model call reporting five- and
    /// six-digit token counts (as real calls do), so `usage` holds real
    /// widths of counts
    #[arg(long)]
    usage: bool,
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Where to write the store [default: a temp dir, removed afterwards]
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Time sends instead: one send with a small and with a large inbox and session log
    #[arg(long)]
    send: bool,
    /// Time wake-ups instead: wait-agent and serve after a send (needs `cargo build --release`)
    #[arg(long)]
    wake: bool,
    /// With --wake: deliveries per measurement
    #[arg(long, default_value_t = 100)]
    deliveries: usize,
    /// With --send: the size of the large inbox and session log, in MB
    #[arg(long, default_value_t = 100)]
    large_mb: usize,
    /// Time hostile inputs instead: a 1,000,000-record inbox before and after
    /// compaction, and 3 GB lines (needs `cargo build --release`)
    #[arg(long)]
    hostile: bool,
    /// Time every command at each store size instead, beside the floors of
    /// reading every log and every header once (needs `cargo build --release`)
    #[arg(long)]
    scale: bool,
    /// With --scale: the store sizes, in sessions
    #[arg(long, value_delimiter = ',', default_value = "1000,10000,100000")]
    sizes: Vec<usize>,
    /// With --scale: also time DSH rc.8's own `list_agents` (descendants) at
    /// up to 10,000 sessions, from an oracle installed by
    /// `../shared/tools/dsh-rc8/setup.sh DIR`, and check its text is ours
    #[arg(long)]
    rc8: Option<PathBuf>,
    /// Time reads of a large, mostly claimed inbox and a large log instead,
    /// beside the same on a 1 KB one (needs `cargo build --release`)
    #[arg(long)]
    large: bool,
    /// Time a 10,000-deep parentSession chain instead: a send to the
    /// deepest agent beside one at depth 1, the listings and `tree` (needs
    /// `cargo build --release`)
    #[arg(long)]
    deep: bool,
    /// Time `log --last`, `trace` and `tree` on a 1 GB raw log and on a
    /// Zstandard log of the same turns instead (needs `cargo build --release`)
    #[arg(long)]
    log_tail: bool,
    /// Time `serve --once -- cat` draining an inbox instead: turns per
    /// second at each of `--pending` queued messages (needs `cargo build --release`)
    #[arg(long)]
    drain: bool,
    /// With --drain: the queue lengths
    #[arg(long, value_delimiter = ',', default_value = "10,10000")]
    pending: Vec<usize>,
    /// With --drain: stop after this many turns (the rate at that queue length)
    #[arg(long, default_value_t = 1000)]
    turns: usize,
    /// Time the first v2 send by name after a `spawn` instead, in a
    /// one-project store of each `--sizes` (needs `cargo build --release`)
    #[arg(long)]
    spawn_send: bool,
    /// Internal: time one form on an existing store and print one line
    #[arg(long, num_args = 2, value_names = ["STORE", "FORM"])]
    measure: Option<Vec<String>>,
}

/// The root's v1 descendants listing (DSH rc.8's own form).
const V1_DESCENDANTS: &[&str] = &[
    "--contract",
    "v1",
    "list-agents",
    "--as",
    "root",
    "--scope",
    "descendants",
];

const FORMS: &[(&str, &[&str])] = &[
    (
        "v2 list_agents (whole tree)",
        &["list-agents", "--as", "root"],
    ),
    (
        "v2 list_agents --json",
        &["list-agents", "--as", "root", "--json"],
    ),
    (
        "v1 list_agents children",
        &["--contract", "v1", "list-agents", "--as", "root"],
    ),
    ("v1 list_agents descendants", V1_DESCENDANTS),
    ("tree (all trees)", &["tree"]),
    ("check", &["check"]),
    ("usage (every agent)", &["usage"]),
    // (`OUT`: a file beside the store.)
    (
        "export --otlp --all",
        &["export", "--otlp", "--all", "-o", "OUT"],
    ),
];

/// The generation `generate` writes (`--generation`).
static GENERATION: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Whether each child's turn holds a model call (`--usage`).
static WITH_USAGE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether `id` makes ids in no tree order (`--random-ids`).
static RANDOM_IDS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn id(i: usize) -> String {
    if RANDOM_IDS.load(std::sync::atomic::Ordering::Relaxed) {
        // splitmix64: a fixed, well-mixed order.
        let mut z = (i as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        return format!("{:016x}-{i}", z ^ (z >> 31));
    }
    format!("sa-{i:07}")
}

fn generate(dir: &Path, n: usize, fanout: usize, extra: usize, zstd: bool) -> u64 {
    let project = dir.join("_no-cwd");
    let mut bytes = 0u64;
    let generation = GENERATION.load(std::sync::atomic::Ordering::Relaxed);
    // From generation 2 on the header's keys are closed: no `name`.
    let (version, seeded, descriptor) = match generation {
        0 => (0, "", 2),
        1 => (1, "", 3),
        g => (g, r#","isSeeded":false"#, 3),
    };
    let mut write = |sid: &str, header: String, events: Vec<String>| {
        let d = project.join(sid);
        std::fs::create_dir_all(&d).unwrap();
        let body: String = events.iter().map(|e| format!("{e}\n")).collect();
        let content = if zstd {
            let mut c = encode_frame(format!("{header}\n").as_bytes()).unwrap();
            c.extend(encode_frame(body.as_bytes()).unwrap());
            c
        } else {
            format!("{header}\n{body}").into_bytes()
        };
        bytes += content.len() as u64;
        let name = match (generation, zstd) {
            (0, true) => "session.jsonl.zstd".to_string(),
            (0, false) => "session.jsonl".to_string(),
            (g, true) => format!("session.v{g}.jsonl.zstd"),
            (g, false) => format!("session.v{g}.jsonl"),
        };
        std::fs::write(d.join(name), content).unwrap();
    };
    let turn =
        |seq: usize| format!(r#"{{"type":"turn/start","seq":{seq},"time":1,"data":{{"turn":1}}}}"#);
    let end = |seq: usize| {
        format!(
            r#"{{"type":"turn/end","seq":{seq},"time":10000,"data":{{"turn":1,"reason":{{"kind":"completed"}}}}}}"#
        )
    };
    let msg = |seq: usize, text: &str| {
        format!(
            r#"{{"type":"user/message","seq":{seq},"time":2,"data":{{"content":[{{"type":"text","text":"{text}"}}],"source":{{"kind":"user"}},"role":"user","id":"m-{seq}"}},"surfaceOp":"append"}}"#
        )
    };
    write(
        "root",
        format!(
            r#"{{"type":"session","version":{version},"id":"root","createdAt":1,"delegationDepth":0{seeded}}}"#
        ),
        vec![turn(0), end(1)],
    );
    for i in 0..n {
        let parent = if i < fanout {
            "root".to_string()
        } else {
            id(i / fanout - 1)
        };
        let mode = if i % 5 == 4 {
            "one-shot"
        } else {
            "continuable"
        };
        let name = if generation >= 2 {
            String::new()
        } else {
            format!(r#","name":"n{i}""#)
        };
        let header = format!(
            r#"{{"type":"session","version":{version},"id":"{}","createdAt":{},"parentSession":"{parent}","origin":"subagent","delegationDepth":1{seeded}{name}}}"#,
            id(i),
            1000 + i
        );
        let mut events = vec![turn(0), msg(1, "work")];
        events.push(format!(
            r#"{{"type":"subagent/descriptor","seq":2,"time":3,"data":{{"version":{descriptor},"mode":"{mode}","provider":"spawn","label":"task {i}"}}}}"#
        ));
        for k in 0..extra {
            events.push(msg(events.len(), &format!("more {k} ").repeat(20)));
        }
        if WITH_USAGE.load(std::sync::atomic::Ordering::Relaxed) {
            events.push(format!(
                r#"{{"type":"assistant/message","seq":{},"time":5,"data":{{"turn":1,"step":1,"message":{{"role":"assistant","content":[{{"type":"text","text":"done"}}],"source":{{"kind":"model","provider":"deepseek","model":"deepseek-chat"}},"id":"a-{i}"}},"usage":{{"inputTokens":{},"cacheReadTokens":{},"outputTokens":{},"reasoningTokens":{}}}}},"surfaceOp":"append"}}"#,
                events.len(),
                10_000 + i % 90_000,
                100_000 + i % 900_000,
                1_000 + i % 9_000,
                i % 5_000
            ));
        }
        events.push(end(events.len()));
        write(&id(i), header, events);
    }
    bytes
}

fn vm_hwm_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// Counts the lines written to it.
struct LineCount(usize);

impl Write for LineCount {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += memchr::memchr_iter(b'\n', buf).count();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The name of `top`'s first frame among the forms (after `FORMS`).
const TOP_FORM: &str = "top first frame (120x40)";

fn measure(store: &str, form: usize, runs: usize) {
    if form == FORMS.len() {
        return measure_top(store, runs);
    }
    let (_, args) = FORMS[form];
    let mut times = Vec::new();
    let mut rows = 0;
    for _ in 0..runs {
        let out_file = format!("{store}.export.json");
        let mut argv = vec!["dsh-agents", "--store", store];
        argv.extend(
            args.iter()
                .map(|a| if *a == "OUT" { out_file.as_str() } else { a }),
        );
        // What a command writes as it renders (`tree`) is counted here, not
        // kept (a million rows would be this process's memory, not the
        // command's).
        let mut streamed = LineCount(0);
        let start = Instant::now();
        let out =
            dsh_agents::run_to(Cli::parse_from(&argv), &mut streamed).expect("listing succeeds");
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        rows = match out {
            Output::Text(t) => t.lines().count(),
            _ => streamed.0,
        };
        let _ = std::fs::remove_file(&out_file);
    }
    print_measured(times, rows);
}

/// `top`'s first frame: the tree pane (`tree --width W` with its
/// members), the selected agent's tab, drawn into a 120x40 screen.
fn measure_top(store: &str, runs: usize) {
    let mut times = Vec::new();
    let mut rows = 0;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    for _ in 0..runs {
        let start = Instant::now();
        let frame = dsh_agents::top_frame_text(
            Path::new(store),
            "bench",
            120,
            40,
            &[],
            now,
            "2027-01-15T08:00:00.000Z",
        )
        .expect("a frame");
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        rows = frame.lines().count();
    }
    print_measured(times, rows);
}

/// One form's line for the table: median and fastest ms, peak KiB, rows.
fn print_measured(mut times: Vec<f64>, rows: usize) {
    times.sort_by(f64::total_cmp);
    println!(
        "{:.1}\t{:.1}\t{}\t{}",
        times[times.len() / 2],
        times[0],
        vm_hwm_kib(),
        rows
    );
}

/// A store with a root and one continuable child whose log and inbox are
/// padded to about `bytes` each.
fn send_store(dir: &Path, bytes: usize) {
    let project = dir.join("_no-cwd");
    std::fs::create_dir_all(project.join("root")).unwrap();
    std::fs::create_dir_all(project.join("kid")).unwrap();
    std::fs::write(project.join("root/session.jsonl"), "{\"type\":\"session\",\"version\":0,\"id\":\"root\",\"createdAt\":1,\"delegationDepth\":0}\n").unwrap();
    // Streamed, so this process stays small: a child it spawns starts with
    // its peak resident size.
    let mut log =
        std::io::BufWriter::new(std::fs::File::create(project.join("kid/session.jsonl")).unwrap());
    let mut written = 0;
    let mut put = |w: &mut std::io::BufWriter<std::fs::File>, line: String| {
        w.write_all(line.as_bytes()).unwrap();
        written += line.len();
        written
    };
    put(&mut log, "{\"type\":\"session\",\"version\":0,\"id\":\"kid\",\"createdAt\":2,\"parentSession\":\"root\",\"origin\":\"subagent\",\"delegationDepth\":1,\"name\":\"kid\"}\n".to_string());
    put(&mut log, "{\"type\":\"subagent/descriptor\",\"seq\":0,\"time\":1,\"data\":{\"version\":2,\"mode\":\"continuable\",\"provider\":\"spawn\",\"label\":\"padded\"}}\n".to_string());
    let pad = "lorem ipsum ".repeat(80);
    let mut seq = 1;
    while put(
        &mut log,
        format!(
            "{{\"type\":\"user/message\",\"seq\":{seq},\"time\":2,\"data\":{{\"content\":[{{\"type\":\"text\",\"text\":\"{pad}\"}}],\"source\":{{\"kind\":\"user\"}},\"role\":\"user\",\"id\":\"m{seq}\"}},\"surfaceOp\":\"append\"}}\n"
        ),
    ) < bytes
    {
        seq += 1;
    }
    log.flush().unwrap();
    let mut inbox =
        std::io::BufWriter::new(std::fs::File::create(project.join("kid/inbox.jsonl")).unwrap());
    let mut written = 0;
    let mut n = 0;
    while written < bytes {
        let line = format!(
            "{{\"type\":\"message\",\"id\":\"pad-{n}\",\"time\":1,\"target\":\"next-turn\",\"source\":{{\"kind\":\"user\"}},\"content\":[{{\"type\":\"text\",\"text\":\"{pad}\"}}],\"keyed\":true}}\n{{\"type\":\"claim\",\"time\":1,\"ids\":[\"pad-{n}\"]}}\n"
        );
        inbox.write_all(line.as_bytes()).unwrap();
        written += line.len();
        n += 1;
    }
    inbox.flush().unwrap();
    // Flush the freshly written files so no timed send pays for their writeback.
    for f in ["kid/session.jsonl", "kid/inbox.jsonl"] {
        std::fs::File::open(project.join(f))
            .and_then(|f| f.sync_all())
            .unwrap();
    }
}

/// The 1 KB store, then the `--large-mb` one (`send_store`), each made
/// when its turn comes.
fn sized_stores<'a>(args: &Args, base: &'a Path) -> impl Iterator<Item = (String, PathBuf)> + 'a {
    [
        ("1 KB".to_string(), 1024),
        (format!("{} MB", args.large_mb), args.large_mb << 20),
    ]
    .into_iter()
    .map(move |(label, bytes)| {
        let dir = base.join(label.replace(' ', ""));
        let _ = std::fs::remove_dir_all(&dir);
        send_store(&dir, bytes);
        (label, dir)
    })
}

fn time_sends(dir: &Path, argv: &[&str], runs: usize) -> (f64, f64) {
    let store = dir.to_str().unwrap();
    let mut times = Vec::new();
    // The first send builds the pending-count and scan caches.
    for i in 0..=runs {
        let mut full = vec!["dsh-agents", "--store", store];
        full.extend_from_slice(argv);
        let start = Instant::now();
        dsh_agents::run(Cli::parse_from(&full)).expect("send succeeds");
        if i > 0 {
            times.push(start.elapsed().as_secs_f64() * 1000.0);
            if std::env::var_os("BENCH_DEBUG").is_some() && times[times.len() - 1] > 20.0 {
                eprintln!("{argv:?} send {i}: {:.1} ms", times[times.len() - 1]);
            }
        }
    }
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], times[times.len() - 1])
}

fn bench_sends(args: &Args) {
    let base = std::env::temp_dir().join(format!("dsh-bench-send-{}", std::process::id()));
    println!("| inbox and session log | form | median ms | max ms |");
    println!("|---|---|---:|---:|");
    for (label, dir) in sized_stores(args, &base) {
        for (form, argv) in [
            (
                "v2 send_message",
                &["send-message", "kid", "hello", "--as", "root"][..],
            ),
            (
                "v1 send_message",
                &[
                    "--contract",
                    "v1",
                    "send-message",
                    "kid",
                    "hello",
                    "--as",
                    "root",
                ][..],
            ),
            ("operator followup", &["followup", "kid", "hello"][..]),
        ] {
            let (median, max) = time_sends(&dir, argv, args.runs);
            println!("| {label} | {form} | {median:.2} | {max:.2} |");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

fn binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .map(|d| d.join("dsh-agents"))
        .unwrap();
    assert!(
        bin.is_file(),
        "build the binary first: cargo build --release ({})",
        bin.display()
    );
    bin
}

fn run_lib(store: &Path, argv: &[&str]) {
    let mut full = vec!["dsh-agents", "--store", store.to_str().unwrap()];
    full.extend_from_slice(argv);
    dsh_agents::run(Cli::parse_from(&full)).expect("command succeeds");
}

fn summary(mut ms: Vec<f64>) -> (f64, f64) {
    ms.sort_by(f64::total_cmp);
    (ms[ms.len() / 2], ms[ms.len() - 1])
}

/// Latency from the start of a steer to `wait-agent` printing its result.
fn wake_wait(store: &Path, n: usize, poll: bool) -> (f64, f64) {
    let bin = binary();
    let mut ms = Vec::new();
    for i in 0..n {
        let call = format!("bench-{i}");
        let mut args = vec![
            "--store",
            store.to_str().unwrap(),
            "wait-agent",
            "--as",
            "kid",
            "--timeout-ms",
            "60000",
            "--call",
            &call,
        ];
        if poll {
            args.push("--poll");
        }
        let mut child = Command::new(&bin)
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
        // Let it subscribe and find nothing pending.
        std::thread::sleep(std::time::Duration::from_millis(40));
        let start = Instant::now();
        run_lib(store, &["steer", "kid", "wake up"]);
        // The result line is what the caller sees; process teardown is not counted.
        let mut line = String::new();
        std::io::BufRead::read_line(&mut out, &mut line).unwrap();
        ms.push(start.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(line.trim(), "{\"timedOut\":false}");
        child.wait().unwrap();
        run_lib(store, &["claim", "--as", "kid"]);
    }
    summary(ms)
}

/// Latency from a send to the served handler starting its turn.
fn wake_serve(store: &Path, n: usize, poll: bool) -> (f64, f64) {
    let bin = binary();
    let stamps = store.join("stamps.txt");
    let handler = store.join("stamp.sh");
    std::fs::write(
        &handler,
        format!(
            "#!/bin/sh\ndate +%s%N >> '{}'\ncat > /dev/null\n",
            stamps.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(
        &handler,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let mut args = vec!["--store", store.to_str().unwrap(), "serve", "--as", "kid"];
    if poll {
        args.push("--poll");
    }
    args.extend_from_slice(&["--", handler.to_str().unwrap()]);
    let mut server = Command::new(&bin).args(&args).spawn().unwrap();
    // Wait until the server is live and idle.
    let live = store.join("_no-cwd/kid/live.json");
    let started = Instant::now();
    while !live.is_file() && started.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    if std::env::var_os("BENCH_DEBUG").is_some() {
        eprintln!(
            "server live after {:.1} ms",
            started.elapsed().as_secs_f64() * 1000.0
        );
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    let mut ms = Vec::new();
    for i in 0..n {
        let before = std::fs::read_to_string(&stamps)
            .map(|s| s.lines().count())
            .unwrap_or(0);
        let t0 = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        run_lib(store, &["followup", "kid", &format!("turn {i}")]);
        let line = loop {
            let text = std::fs::read_to_string(&stamps).unwrap_or_default();
            if text.lines().count() > before {
                break text.lines().last().unwrap().to_string();
            }
            std::thread::sleep(std::time::Duration::from_micros(200));
        };
        let t1: u128 = line.trim().parse().unwrap();
        ms.push((t1.saturating_sub(t0)) as f64 / 1e6);
        if std::env::var_os("BENCH_DEBUG").is_some() && ms[ms.len() - 1] > 100.0 {
            eprintln!("delivery {i}: {:.1} ms", ms[ms.len() - 1]);
        }
        // Let the turn end before the next delivery.
        std::thread::sleep(std::time::Duration::from_millis(30));
    }
    let _ = server.kill();
    let _ = server.wait();
    summary(ms)
}

fn bench_wake(args: &Args) {
    let dir = std::env::temp_dir().join(format!("dsh-bench-wake-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    send_store(&dir, 1024);
    println!("| what | wake-up | median ms | max ms |");
    println!("|---|---|---:|---:|");
    for poll in [false, true] {
        let mode = if poll { "--poll" } else { "file notification" };
        let (median, max) = wake_wait(&dir, args.deliveries, poll);
        println!("| wait-agent returns after a steer | {mode} | {median:.2} | {max:.2} |");
    }
    for poll in [false, true] {
        let mode = if poll { "--poll" } else { "file notification" };
        let (median, max) = wake_serve(&dir, args.deliveries, poll);
        println!("| serve starts the handler after a followup | {mode} | {median:.2} | {max:.2} |");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A benchmark other than the listing one, chosen by its flag.
type Mode = fn(&Args);

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    if argv.get(1).map(String::as_str) == Some("--spawn-measured") {
        spawn_measured(&argv[2..]);
        return;
    }
    let args = Args::parse();
    RANDOM_IDS.store(args.random_ids, std::sync::atomic::Ordering::Relaxed);
    GENERATION.store(args.generation, std::sync::atomic::Ordering::Relaxed);
    WITH_USAGE.store(args.usage, std::sync::atomic::Ordering::Relaxed);
    let modes: [(bool, Mode); 9] = [
        (args.spawn_send, bench_spawn_send),
        (args.deep, bench_deep),
        (args.log_tail, bench_log_tail),
        (args.drain, bench_drain),
        (args.wake, bench_wake),
        (args.send, bench_sends),
        (args.hostile, bench_hostile),
        (args.scale, bench_scale),
        (args.large, bench_large),
    ];
    if let Some((_, mode)) = modes.iter().find(|(on, _)| *on) {
        mode(&args);
        return;
    }
    if let Some(m) = &args.measure {
        measure(&m[0], m[1].parse().unwrap(), args.runs);
        return;
    }
    let temp = args.dir.is_none();
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join(format!("dsh-bench-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&dir);
    let zstd = args.compression == "zstd";
    let start = Instant::now();
    let bytes = generate(&dir, args.sessions, args.fanout, args.events, zstd);
    println!(
        "store: {} sessions + root, fan-out {}, {} extra events per log, {}, {:.1} MB on disk (generated in {:.1} s)",
        args.sessions,
        args.fanout,
        args.events,
        if zstd { "zstd" } else { "raw" },
        bytes as f64 / 1e6,
        start.elapsed().as_secs_f64()
    );
    println!("| form | median ms | min ms | peak RSS MiB | rows |");
    println!("|---|---:|---:|---:|---:|");
    let exe = std::env::current_exe().unwrap();
    let names = FORMS.iter().map(|(name, _)| *name).chain([TOP_FORM]);
    for (i, name) in names.enumerate() {
        let out = Command::new(&exe)
            .args([
                "--runs",
                &args.runs.to_string(),
                "--measure",
                dir.to_str().unwrap(),
                &i.to_string(),
            ])
            .output()
            .unwrap();
        let line = String::from_utf8_lossy(&out.stdout);
        let f: Vec<&str> = line.trim().split('\t').collect();
        if f.len() != 4 {
            eprintln!(
                "{name}: measurement failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            continue;
        }
        let rss = f[2].parse::<f64>().unwrap_or(0.0) / 1024.0;
        println!("| {name} | {} | {} | {rss:.1} | {} |", f[0], f[1], f[3]);
    }
    if temp {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Run the release binary once; wall time and peak RSS (`wait4`).
fn timed(bin: &Path, store: &Path, argv: &[&str]) -> (f64, f64, i32) {
    let mut cmd = Command::new(bin);
    cmd.arg("--store").arg(store).args(argv);
    let (wall, _, rss, code) = run_measured(cmd);
    (wall, rss, code)
}

/// Run a command to its end: wall ms, CPU ms (user + system, its waited
/// children included), peak RSS MiB, exit status.
///
/// It is started by a fresh copy of this program (`--spawn-measured`):
/// Linux records a process's peak size at `exec` from the memory it had
/// before, and a child spawned straight from here shares this program's
/// (vfork) — every figure would be at least this benchmark's own peak,
/// generated stores and all. A fresh copy is a few MiB.
fn run_measured(cmd: Command) -> (f64, f64, f64, i32) {
    let mut outer = Command::new(std::env::current_exe().unwrap());
    outer.arg("--spawn-measured").arg(cmd.get_program());
    outer.args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => outer.env(k, v),
            None => outer.env_remove(k),
        };
    }
    if let Some(d) = cmd.get_current_dir() {
        outer.current_dir(d);
    }
    let out = outer.stderr(Stdio::inherit()).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let f: Vec<f64> = text
        .split_whitespace()
        .map(|w| w.parse().unwrap())
        .collect();
    (f[0], f[1], f[2], f[3] as i32)
}

/// `--spawn-measured PROGRAM ARGS…`: run it here, print what
/// `run_measured` reports.
fn spawn_measured(argv: &[String]) {
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..]);
    let (ms, cpu, rss, code) = run_measured_here(cmd);
    println!("{ms} {cpu} {rss} {code}");
}

fn run_measured_here(mut cmd: Command) -> (f64, f64, f64, i32) {
    let start = Instant::now();
    let mut child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: zeroed plain-old-data, filled by the kernel.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waiting for our own child, valid out pointers.
    unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    let _ = child.try_wait();
    let ms = start.elapsed().as_secs_f64() * 1e3;
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    let tv = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    let cpu = tv(usage.ru_utime) + tv(usage.ru_stime);
    (ms, cpu, usage.ru_maxrss as f64 / 1024.0, code)
}

/// Median wall, its CPU, and the largest peak RSS over `runs` runs.
fn repeat(runs: usize, make: impl Fn() -> Command) -> (f64, f64, f64, i32) {
    repeat_after(runs, || {}, make)
}

/// As `repeat`, running `before` (untimed) ahead of each run.
fn repeat_after(
    runs: usize,
    before: impl Fn(),
    make: impl Fn() -> Command,
) -> (f64, f64, f64, i32) {
    let mut all: Vec<(f64, f64, f64, i32)> = (0..runs)
        .map(|_| {
            before();
            run_measured(make())
        })
        .collect();
    let rss = all.iter().map(|r| r.2).fold(0.0, f64::max);
    let code = all.iter().map(|r| r.3).find(|c| *c != 0).unwrap_or(0);
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mid = all[all.len() / 2];
    (mid.0, mid.1, rss, code)
}

/// A row's note of a command that failed.
fn exit_mark(code: i32) -> String {
    if code == 0 {
        String::new()
    } else {
        format!(" (exit {code})")
    }
}

/// A continuable child near the bottom of a generated tree, and its parent.
fn leaf(n: usize, fanout: usize) -> (String, String) {
    let i = (0..n).rev().find(|i| i % 5 != 4).unwrap();
    let parent = if i < fanout {
        "root".to_string()
    } else {
        id(i / fanout - 1)
    };
    (id(i), parent)
}

/// A command, and what runs before each timing of it.
type LargeForm = (
    &'static str,
    &'static [&'static str],
    Option<&'static [&'static str]>,
);

/// Each command on a root and a child whose log and inbox (keyed messages,
/// all claimed: compaction keeps them) are 1 KB, then `--large-mb` MB.
fn bench_large(args: &Args) {
    let bin = binary();
    let base = std::env::temp_dir().join(format!("dsh-bench-large-{}", std::process::id()));
    println!("| inbox and session log | command | wall ms | CPU ms | peak RSS MiB |");
    println!("|---|---|---:|---:|---:|");
    for (label, dir) in sized_stores(args, &base) {
        let ours = |argv: &'static [&'static str]| {
            let bin = bin.clone();
            let dir = dir.clone();
            move || {
                let mut c = Command::new(&bin);
                c.arg("--store").arg(&dir).args(argv);
                c
            }
        };
        let forms: &[LargeForm] = &[
            ("inbox", &["inbox", "kid"], None),
            (
                "wait-agent (returns at once)",
                &["wait-agent", "--as", "kid", "--timeout-ms", "10000"],
                Some(&["steer", "kid", "now"]),
            ),
            (
                "claim",
                &["claim", "--as", "kid"],
                Some(&["steer", "kid", "now"]),
            ),
            (
                "v1 interrupt-agent",
                &["--contract", "v1", "interrupt-agent", "kid", "--as", "root"],
                None,
            ),
            ("interrupt", &["interrupt", "kid"], None),
            ("followup", &["followup", "kid", "hi"], None),
        ];
        for (what, argv, before) in forms {
            let before = || {
                if let Some(b) = before {
                    repeat(1, ours(b));
                }
            };
            // The first call builds the caches a later one resumes from.
            repeat_after(1, before, ours(argv));
            let r = repeat_after(args.runs, before, ours(argv));
            println!(
                "| {label} | {what}{} | {:.1} | {:.1} | {:.1} |",
                exit_mark(r.3),
                r.0,
                r.1,
                r.2
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    let _ = std::fs::remove_dir_all(&base);
}

fn kid_index(id: &str) -> usize {
    id.rsplit(['-']).next().unwrap().parse().unwrap()
}

/// The v2 name path of generated session `i` (`n0/n8/n72`).
fn name_path(mut i: usize, fanout: usize) -> String {
    let mut names = vec![format!("n{i}")];
    while i >= fanout {
        i = i / fanout - 1;
        names.push(format!("n{i}"));
    }
    names.reverse();
    names.join("/")
}

fn bench_scale(args: &Args) {
    let bin = binary();
    let zstd = args.compression == "zstd";
    let base = args.dir.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("dsh-bench-scale-{}", std::process::id()))
    });
    let runs = args.runs;
    println!(
        "fan-out {}, {} events per child log, {}; median of {runs} runs (wall), its CPU, largest peak RSS",
        args.fanout,
        args.events + 4,
        if zstd { "zstd" } else { "raw" }
    );
    println!("| sessions | command | wall ms | CPU ms | peak RSS MiB | × cat floor |");
    println!("|---:|---|---:|---:|---:|---:|");
    for &n in &args.sizes {
        let dir = base.join(format!("s{n}"));
        let _ = std::fs::remove_dir_all(&dir);
        let bytes = generate(&dir, n, args.fanout, args.events, zstd);
        // Every generation's log name (`session.jsonl`, `session.vN.jsonl`, …).
        let log = if zstd {
            "'session*.jsonl.zstd'"
        } else {
            "'session*.jsonl'"
        };
        let shell = |script: String| {
            move || {
                let mut c = Command::new("sh");
                c.arg("-c").arg(&script);
                c
            }
        };
        let d = dir.to_str().unwrap().to_string();
        // Warm the page cache, as every measurement below runs warm.
        repeat(
            1,
            shell(format!("find {d} -name {log} -exec cat {{}} + >/dev/null")),
        );
        let floor = repeat(
            runs,
            shell(format!("find {d} -name {log} -exec cat {{}} + >/dev/null")),
        );
        let header_floor = repeat(
            runs,
            shell(format!(
                "find {d} -name {log} -exec head -q -c 4096 {{}} + >/dev/null"
            )),
        );
        let row = |what: &str, r: (f64, f64, f64, i32)| {
            let mark = exit_mark(r.3);
            println!(
                "| {n} | {what}{mark} | {:.1} | {:.1} | {:.1} | {:.2} |",
                r.0,
                r.1,
                r.2,
                r.0 / floor.0
            );
        };
        println!(
            "| {n} | *store: {:.1} MB; floor: `find -exec cat` every log* | {:.1} | {:.1} | {:.1} | 1.00 |",
            bytes as f64 / 1e6,
            floor.0,
            floor.1,
            floor.2
        );
        row("*floor: `find -exec head -c 4096` every log*", header_floor);
        let (kid, parent) = leaf(n, args.fanout);
        let kid_name = name_path(kid_index(&kid), args.fanout);
        let ours = |argv: Vec<String>| {
            let bin = bin.clone();
            let dir = dir.clone();
            move || {
                let mut c = Command::new(&bin);
                c.arg("--store").arg(&dir).args(&argv);
                c.env("DSH_AGENTS_CACHE_DIR", dir.with_extension("cache"));
                c
            }
        };
        // The name index trusts only directories whose mtime is a second old.
        std::thread::sleep(std::time::Duration::from_millis(1100));
        let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let forms: Vec<(&str, Vec<String>)> = vec![
            (
                "v2 list-agents (whole tree)",
                v(&["list-agents", "--as", "root"]),
            ),
            ("v1 list-agents --scope descendants", v(V1_DESCENDANTS)),
            ("tree", v(&["tree"])),
            ("check", v(&["check"])),
            (
                "export --otlp --all -o /dev/null",
                v(&["export", "--otlp", "--all", "-o", "/dev/null"]),
            ),
            (
                "v1 send-message (by id)",
                v(&[
                    "--contract",
                    "v1",
                    "send-message",
                    &kid,
                    "hi",
                    "--as",
                    &parent,
                ]),
            ),
            (
                "v2 send-message (by name)",
                v(&["send-message", &kid_name, "hi", "--as", "root"]),
            ),
            (
                "v2 send-message (by name, --no-cache)",
                v(&[
                    "--no-cache",
                    "send-message",
                    &kid_name,
                    "hi",
                    "--as",
                    "root",
                ]),
            ),
            ("followup", v(&["followup", &kid, "hi"])),
            ("identity", v(&["identity", "--as", &kid])),
            ("inbox", v(&["inbox", &kid])),
            ("steer", v(&["steer", &kid, "now"])),
            (
                "wait-agent (returns at once)",
                v(&["wait-agent", "--as", &kid, "--timeout-ms", "10000"]),
            ),
            (
                "v1 interrupt-agent",
                v(&["--contract", "v1", "interrupt-agent", &kid, "--as", &parent]),
            ),
        ];
        for (what, argv) in forms {
            // One warm-up call builds the caches a repeated command uses.
            repeat(1, ours(argv.clone()));
            row(what, repeat(runs, ours(argv)));
        }
        if let Some(oracle) = args.rc8.as_ref().filter(|_| n <= 10_000) {
            let rc8 = || {
                let mut c = Command::new(oracle.join("node22/package/bin/node"));
                c.arg(oracle.join("list.mjs"))
                    .arg("--root")
                    .arg(&dir)
                    .args(["--caller", "root", "--scope", "descendants"]);
                if zstd {
                    c.args(["--compression", "zstd"]);
                }
                c
            };
            let theirs = rc8().output().expect("run the rc.8 oracle");
            let v1 = ours(v(V1_DESCENDANTS))().output().expect("run dsh-agents");
            let same = theirs.status.success() && theirs.stdout == v1.stdout;
            row(
                &format!(
                    "DSH rc.8 `list_agents` descendants (node; text {})",
                    if same { "identical to ours" } else { "DIFFERS" }
                ),
                repeat(runs, rc8),
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(dir.with_extension("cache"));
    }
    // A 10,000-deep parentSession chain.
    let dir = base.join("chain");
    let _ = std::fs::remove_dir_all(&dir);
    generate(&dir, 10_000, 1, 0, zstd);
    for (what, argv) in [
        ("10,000-deep chain: check", vec!["check"]),
        (
            "10,000-deep chain: v1 list-agents --scope descendants",
            V1_DESCENDANTS.to_vec(),
        ),
    ] {
        let r = repeat(runs, || {
            let mut c = Command::new(&bin);
            c.arg("--store").arg(&dir).args(&argv);
            c
        });
        println!(
            "| 10000 | {what} | {:.1} | {:.1} | {:.1} | |",
            r.0, r.1, r.2
        );
    }
    let _ = std::fs::remove_dir_all(&base);
}

/// A spawn, then the first send to the new agent by name: the name index
/// takes the spawned session in, so the send never rescans the project
/// (on every file system, whatever its directory link counts say).
fn bench_spawn_send(args: &Args) {
    let bin = binary();
    let base = std::env::temp_dir().join(format!("dsh-bench-spawn-{}", std::process::id()));
    let cache = base.join("cache");
    println!(
        "first v2 send by name after a spawn, one project; median of {} runs",
        args.runs
    );
    println!("| sessions | spawn ms | send ms | send CPU ms | send peak RSS MiB |");
    println!("|---:|---:|---:|---:|---:|");
    for &n in &args.sizes {
        let dir = base.join(format!("s{n}"));
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&cache);
        generate(&dir, n, args.fanout, 0, false);
        std::thread::sleep(std::time::Duration::from_millis(1100));
        let cmd = |argv: &[String]| {
            let mut c = Command::new(&bin);
            c.env("DSH_AGENTS_CACHE_DIR", &cache)
                .arg("--store")
                .arg(&dir)
                .args(argv);
            c
        };
        let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        // The index is built once, as a user's first send builds it.
        let warm = run_measured(cmd(&v(&["send-message", "n0", "hi", "--as", "root"])));
        assert_eq!(warm.3, 0, "the first send succeeds");
        let mut spawns = Vec::new();
        let mut sends = Vec::new();
        for k in 0..args.runs {
            let name = format!("fresh{k}");
            let spawn = run_measured(cmd(&v(&[
                "spawn", "--parent", "root", "--name", &name, "--id", &name,
            ])));
            assert_eq!(spawn.3, 0, "spawn {name}");
            let send = run_measured(cmd(&v(&["send-message", &name, "hi", "--as", "root"])));
            assert_eq!(send.3, 0, "send to {name}");
            spawns.push(spawn.0);
            sends.push(send);
        }
        spawns.sort_by(f64::total_cmp);
        let rss = sends.iter().map(|r| r.2).fold(0.0, f64::max);
        sends.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mid = sends[sends.len() / 2];
        println!(
            "| {n} | {:.1} | {:.1} | {:.1} | {rss:.1} |",
            spawns[spawns.len() / 2],
            mid.0,
            mid.1
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
    let _ = std::fs::remove_dir_all(&base);
}

fn bench_deep(args: &Args) {
    let bin = binary();
    let dir = args.dir.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("dsh-bench-deep-{}", std::process::id()))
    });
    let _ = std::fs::remove_dir_all(&dir);
    let depth = 10_000;
    generate(&dir, depth, 1, 0, false);
    // The name index trusts a directory's stamp only once it is a second
    // old: measured before that, a send by name would scan every time.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    // The deepest continuable agent and its parent (every fifth is one-shot,
    // which a send refuses).
    let (last, before) = leaf(depth, 1);
    let first = id(0);
    println!(
        "10,000-deep chain (fan-out 1); median of {} runs",
        args.runs
    );
    println!("| command | wall ms | CPU ms | peak RSS MiB |");
    println!("|---|---:|---:|---:|");
    let forms: Vec<(String, Vec<String>)> = vec![
        (
            "followup to depth 1".into(),
            vec!["followup".into(), first.clone(), "hi".into()],
        ),
        (
            "followup to depth 9,999 (the deepest continuable)".into(),
            vec!["followup".into(), last.clone(), "hi".into()],
        ),
        (
            "v1 send-message, depth 9,998 to 9,999".into(),
            vec![
                "--contract".into(),
                "v1".into(),
                "send-message".into(),
                "--as".into(),
                before.clone(),
                last.clone(),
                "hi".into(),
            ],
        ),
        (
            "v2 send-message, root to depth 1".into(),
            vec![
                "send-message".into(),
                "--as".into(),
                "root".into(),
                first.clone(),
                "hi".into(),
            ],
        ),
        (
            "v2 send-message, depth 9,998 to 9,999".into(),
            vec![
                "send-message".into(),
                "--as".into(),
                before,
                last,
                "hi".into(),
            ],
        ),
        (
            "v2 list-agents".into(),
            vec!["list-agents".into(), "--as".into(), "root".into()],
        ),
        ("tree".into(), vec!["tree".into()]),
    ];
    for (what, argv) in forms {
        let r = repeat(args.runs, || {
            let mut c = Command::new(&bin);
            c.arg("--store").arg(&dir).args(&argv);
            c
        });
        println!(
            "| {what}{} | {:.1} | {:.1} | {:.1} |",
            exit_mark(r.3),
            r.0,
            r.1,
            r.2
        );
    }
    stat_floor(&dir, args.runs);
    // A store asked for by `--dir` is kept for a closer look.
    if args.dir.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The least a v2 send from the deepest continuable agent can do without
/// trusting what it has not looked at: one `fstatat` of each ancestor's
/// directory (which log generations it holds) and one of its log (whether
/// it changed), relative to the project directory held open. A cache of
/// the ancestors' state could spare reading their logs, never looking at
/// them: a corrupt or replaced ancestor changes who is a member.
fn stat_floor(dir: &Path, runs: usize) {
    use rustix::fs::{AtFlags, Mode, OFlags, open, statat};
    let project = dir.join("_no-cwd");
    let (last, _) = leaf(10_000, 1);
    let depth: usize = last.trim_start_matches("sa-").parse().unwrap_or(0);
    let names: Vec<(String, String)> = std::iter::once("root".to_string())
        .chain((0..depth).map(id))
        .map(|n| (n.clone(), format!("{n}/session.jsonl")))
        .collect();
    let Ok(fd) = open(&project, OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty()) else {
        return;
    };
    let mut times: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            for (d, log) in &names {
                let _ = statat(&fd, d.as_str(), AtFlags::SYMLINK_NOFOLLOW);
                let _ = statat(&fd, log.as_str(), AtFlags::SYMLINK_NOFOLLOW);
            }
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let n = names.len();
    println!(
        "| *floor: `fstatat` of the {},{:03} ancestors' directories and logs, in-process* | {:.1} | | |",
        n / 1000,
        n % 1000,
        times[times.len() / 2]
    );
}

fn bench_log_tail(args: &Args) {
    let bin = binary();
    let base = args.dir.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("dsh-bench-tail-{}", std::process::id()))
    });
    let _ = std::fs::remove_dir_all(&base);
    println!("| log | command | wall ms | CPU ms | peak RSS MiB |");
    println!("|---|---|---:|---:|---:|");
    // (raw or zstd, a subagent's log or a root's, bytes of turns)
    for (zstd, child, bytes) in [
        (false, false, 1_000_000_000u64),
        (false, true, 1_000_000_000),
        (true, true, 1_000_000_000),
        (false, true, 100_000_000),
    ] {
        let dir = base.join(format!(
            "{}-{}-{bytes}",
            if zstd { "zstd" } else { "raw" },
            child
        ));
        let session = dir.join("_no-cwd").join("big");
        std::fs::create_dir_all(&session).unwrap();
        // A subagent's log: its parent, and its descriptor in its creation
        // seed, as DSH writes them.
        let header = if child {
            let lead = dir.join("_no-cwd").join("lead");
            std::fs::create_dir_all(&lead).unwrap();
            let lead_header = "{\"type\":\"session\",\"version\":0,\"id\":\"lead\",\"createdAt\":1,\"delegationDepth\":0}\n";
            // One store, one log suffix: DSH writes every log alike.
            if zstd {
                std::fs::write(
                    lead.join("session.jsonl.zstd"),
                    encode_frame(lead_header.as_bytes()).unwrap(),
                )
            } else {
                std::fs::write(lead.join("session.jsonl"), lead_header)
            }
            .unwrap();
            r#"{"type":"session","version":0,"id":"big","createdAt":2,"parentSession":"lead","origin":"subagent","delegationDepth":1,"name":"big"}"#
        } else {
            r#"{"type":"session","version":0,"id":"big","createdAt":1,"delegationDepth":0}"#
        };
        let pad = "lorem ipsum ".repeat(80);
        // Turns of about 1.2 KB up to 1 GB, written in 8 MB batches (one
        // Zstandard frame each, as DSH frames its batches).
        let name = if zstd {
            "session.jsonl.zstd"
        } else {
            "session.jsonl"
        };
        let mut f = std::io::BufWriter::new(std::fs::File::create(session.join(name)).unwrap());
        let put = |f: &mut std::io::BufWriter<std::fs::File>, text: &str| {
            if zstd {
                f.write_all(&encode_frame(text.as_bytes()).unwrap())
                    .unwrap();
            } else {
                f.write_all(text.as_bytes()).unwrap();
            }
        };
        put(&mut f, &format!("{header}\n"));
        let (mut seq, mut turn, mut written) = (0u64, 0u64, 0u64);
        let mut batch = String::new();
        if child {
            batch.push_str("{\"type\":\"subagent/descriptor\",\"seq\":0,\"time\":1,\"data\":{\"version\":2,\"mode\":\"continuable\",\"provider\":\"spawn\",\"label\":\"big work\"}}\n{\"type\":\"session/end-seed\",\"seq\":1,\"time\":1,\"data\":{}}\n");
            seq = 2;
        }
        while written < bytes {
            turn += 1;
            batch.push_str(&format!(
                "{{\"type\":\"turn/start\",\"seq\":{seq},\"time\":{seq},\"data\":{{\"turn\":{turn}}}}}\n{{\"type\":\"user/message\",\"seq\":{},\"time\":{seq},\"data\":{{\"content\":[{{\"type\":\"text\",\"text\":\"{pad}\"}}],\"source\":{{\"kind\":\"user\"}},\"role\":\"user\",\"id\":\"m{turn}\"}},\"surfaceOp\":\"append\"}}\n{{\"type\":\"turn/end\",\"seq\":{},\"time\":{seq},\"data\":{{\"turn\":{turn},\"reason\":{{\"kind\":\"completed\"}}}}}}\n",
                seq + 1,
                seq + 2
            ));
            seq += 3;
            if batch.len() > 8 << 20 {
                written += batch.len() as u64;
                put(&mut f, &batch);
                batch.clear();
            }
        }
        if !batch.is_empty() {
            put(&mut f, &batch);
        }
        drop(f);
        let size = std::fs::metadata(session.join(name)).unwrap().len();
        let last = format!("m{turn}");
        let argvs = if bytes < 1_000_000_000 {
            vec![vec!["log", "big"]]
        } else {
            vec![
                vec!["log", "big", "--last", "5"],
                vec!["log", "big", "--last", "1"],
                vec!["log", "big"],
                vec!["trace", &last, "--to", "big"],
                vec!["tree"],
            ]
        };
        for argv in argvs {
            let r = repeat(args.runs, || {
                let mut c = Command::new(&bin);
                c.arg("--store").arg(&dir).args(&argv);
                c
            });
            println!(
                "| {} {} ({:.0} MB on disk, {:.1} GB of turns) | `{}`{} | {:.1} | {:.1} | {:.1} |",
                if zstd { "zstd" } else { "raw" },
                if child { "subagent" } else { "root" },
                size as f64 / 1e6,
                bytes as f64 / 1e9,
                argv.join(" "),
                exit_mark(r.3),
                r.0,
                r.1,
                r.2
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    let _ = std::fs::remove_dir_all(&base);
}

fn bench_hostile(args: &Args) {
    let bin = binary();
    let dir = args.dir.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("dsh-bench-hostile-{}", std::process::id()))
    });
    let _ = std::fs::remove_dir_all(&dir);
    let session = dir.join("_no-cwd").join("root");
    std::fs::create_dir_all(&session).unwrap();
    std::fs::write(
        session.join("session.jsonl"),
        "{\"type\":\"session\",\"version\":0,\"id\":\"root\",\"createdAt\":1,\"delegationDepth\":0}\n",
    )
    .unwrap();
    // 1,000,000 records: 999,900 claimed messages and 100 pending.
    let mut inbox =
        std::io::BufWriter::new(std::fs::File::create(session.join("inbox.jsonl")).unwrap());
    let total = 1_000_000;
    let mut ids = Vec::new();
    for i in 0..total {
        let id = format!("m{i:09}");
        writeln!(
            inbox,
            "{{\"type\":\"message\",\"id\":\"{id}\",\"time\":{i},\"target\":\"next-turn\",\"source\":{{\"kind\":\"user\"}},\"content\":[{{\"type\":\"text\",\"text\":\"message number {i} with some text to carry\"}}]}}"
        )
        .unwrap();
        if i < total - 100 {
            ids.push(id);
        }
        if ids.len() == 1000 {
            writeln!(
                inbox,
                "{}",
                serde_json::json!({"type":"claim","time":i,"ids":ids})
            )
            .unwrap();
            ids.clear();
        }
    }
    if !ids.is_empty() {
        writeln!(
            inbox,
            "{}",
            serde_json::json!({"type":"claim","time":total,"ids":ids})
        )
        .unwrap();
    }
    drop(inbox);
    let size = std::fs::metadata(session.join("inbox.jsonl"))
        .unwrap()
        .len();
    println!(
        "1,000,000-message inbox, 100 pending: {:.1} MB",
        size as f64 / 1e6
    );
    println!("| command | when | ms | peak RSS MiB |");
    println!("|---|---|---:|---:|");
    let row = |what: &str, when: &str, argv: &[&str]| {
        let (ms, rss, code) = timed(&bin, &dir, argv);
        assert!(code == 0, "{what} failed ({code})");
        println!("| {what} | {when} | {ms:.1} | {rss:.1} |");
    };
    row("inbox", "before compaction", &["inbox", "root"]);
    row(
        "claim (compacts)",
        "before compaction",
        &["claim", "--as", "root"],
    );
    let size = std::fs::metadata(session.join("inbox.jsonl"))
        .unwrap()
        .len();
    row(
        "inbox",
        &format!("after ({size} bytes)"),
        &["inbox", "root"],
    );
    row("claim", "after", &["claim", "--as", "root"]);
    row("followup (send)", "after", &["followup", "root", "hello"]);

    // 3 GB lines: a log line, an inbox line, a header line, all without a newline.
    let _ = std::fs::remove_dir_all(&dir);
    let kid = dir.join("_no-cwd").join("kid");
    std::fs::create_dir_all(&kid).unwrap();
    std::fs::create_dir_all(&session).unwrap();
    std::fs::write(
        session.join("session.jsonl"),
        "{\"type\":\"session\",\"version\":0,\"id\":\"root\",\"createdAt\":1,\"delegationDepth\":0}\n",
    )
    .unwrap();
    let head = "{\"type\":\"session\",\"version\":0,\"id\":\"kid\",\"createdAt\":2,\"parentSession\":\"root\",\"origin\":\"subagent\",\"delegationDepth\":1}\n{\"type\":\"subagent/descriptor\",\"seq\":0,\"time\":1,\"data\":{\"version\":2,\"mode\":\"continuable\",\"provider\":\"spawn\",\"label\":\"Kid\"}}\n";
    std::fs::write(kid.join("session.jsonl"), head).unwrap();
    let three_gb: u64 = 3 << 30;
    let grow = |path: &Path, by: u64| {
        let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        let len = f.metadata().unwrap().len();
        f.set_len(len + by).unwrap();
    };
    grow(&kid.join("session.jsonl"), three_gb);
    std::fs::write(kid.join("inbox.jsonl"), b"").unwrap();
    grow(&kid.join("inbox.jsonl"), three_gb);
    let big = dir.join("_no-cwd").join("big");
    std::fs::create_dir_all(&big).unwrap();
    std::fs::write(big.join("session.jsonl"), b"{\"type\":\"session\"").unwrap();
    grow(&big.join("session.jsonl"), three_gb);
    println!();
    println!("3 GB lines (sparse files): a child log's event line, its inbox, another header");
    println!("| command | ms | peak RSS MiB | exit |");
    println!("|---|---:|---:|---:|");
    for argv in [
        &["--contract", "v1", "list-agents", "--as", "root"][..],
        &["list-agents", "--as", "root"],
        &["check"],
        &["inbox", "kid"],
        &["followup", "kid", "x"],
    ] {
        let (ms, rss, code) = timed(&bin, &dir, argv);
        println!("| {} | {ms:.0} | {rss:.1} | {code} |", argv.join(" "));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `serve --once -- cat` on an agent with N next-turn messages queued: one
/// turn each; the rate over the first `--turns` turns (or all of them).
fn bench_drain(args: &Args) {
    let bin = binary();
    println!("| pending | turns | seconds | turns/s |");
    println!("|---:|---:|---:|---:|");
    for &n in &args.pending {
        let dir = std::env::temp_dir().join(format!("dsh-bench-drain-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let kid = dir.join("_no-cwd/kid");
        std::fs::create_dir_all(&kid).unwrap();
        std::fs::write(kid.join("session.jsonl"), "{\"type\":\"session\",\"version\":0,\"id\":\"kid\",\"createdAt\":2,\"delegationDepth\":0}\n").unwrap();
        let mut inbox =
            std::io::BufWriter::new(std::fs::File::create(kid.join("inbox.jsonl")).unwrap());
        for i in 0..n {
            writeln!(inbox, "{{\"type\":\"message\",\"id\":\"m-{i:07}\",\"time\":{i},\"target\":\"next-turn\",\"source\":{{\"kind\":\"user\"}},\"content\":[{{\"type\":\"text\",\"text\":\"message {i}\"}}]}}").unwrap();
        }
        inbox.flush().unwrap();
        drop(inbox);
        let want = n.min(args.turns);
        let mut serve = Command::new(&bin)
            .args([
                "--store",
                dir.to_str().unwrap(),
                "serve",
                "--as",
                "kid",
                "--once",
                "--quiet",
                "--",
                "cat",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        let log = kid.join("session.jsonl");
        let done = || {
            std::fs::read(&log)
                .map(|b| memchr::memmem::find_iter(&b, b"\"turn/end\"").count())
                .unwrap_or(0)
        };
        loop {
            if serve.try_wait().unwrap().is_some() || done() >= want {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let secs = start.elapsed().as_secs_f64();
        let _ = serve.kill();
        let _ = serve.wait();
        let turns = done();
        println!("| {n} | {turns} | {secs:.2} | {:.0} |", turns as f64 / secs);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
