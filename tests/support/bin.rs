//! The one way tests start child processes: the real `sleuth` binary
//! (`SLEUTH_HOME` in a temp dir, none of the developer's keys, log level or
//! config overrides) and the tools some tests drive (tmux, python3, curl,
//! poppler). Every child runs under a time limit — a hung binary fails its
//! test with what it printed instead of hanging CI — and a child a test
//! supervises itself is killed when the test ends, failed or not.

use std::io::{BufRead, BufReader, Read};
use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Whether a test must skip because `tool` is missing: it says so and
/// skips outside CI; in CI (the `CI` variable set, as `.ci/run` does, which
/// installs the tools) a missing tool fails the test instead of passing it silently.
pub fn missing_tool(tool: &str, available: bool, install: &str) -> bool {
    if available {
        return false;
    }
    if std::env::var_os("CI").is_some() {
        panic!("{tool} is missing and CI is set: the test cannot run ({install})");
    }
    eprintln!("SKIPPED: {tool} is missing ({install}); in CI this fails");
    true
}

/// How long a command may run before its test fails.
pub const DEFAULT_LIMIT: Duration = Duration::from_secs(120);

/// How long a helper tool (tmux, a probe) may take for one command.
pub const TOOL_LIMIT: Duration = Duration::from_secs(30);

/// Variables sleuth reads that a developer may have set: the default key
/// variables of the providers, the log level, the server's token. Never
/// passed to a child; a test that needs one sets it on the command.
const NOT_INHERITED: [&str; 7] = [
    "SLEUTH_LOG",
    "SLEUTH_SERVE_TOKEN",
    "OPENAI_API_KEY",
    "TAVILY_API_KEY",
    "BRAVE_SEARCH_API_KEY",
    "OPENALEX_API_KEY",
    "SEMANTIC_SCHOLAR_API_KEY",
];

/// The `sleuth` binary cargo built for these tests.
pub fn sleuth_path() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_sleuth"))
}

/// Gives `cmd` the environment every child of a test gets: `SLEUTH_HOME` =
/// `home`, and none of the variables above nor any `SLEUTH__…` config
/// override. For a program that starts `sleuth` itself (a Python client).
pub fn hermetic<'a>(cmd: &'a mut Command, home: &Path) -> &'a mut Command {
    cmd.env("SLEUTH_HOME", home);
    for name in NOT_INHERITED {
        cmd.env_remove(name);
    }
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("SLEUTH__") {
            cmd.env_remove(name);
        }
    }
    cmd
}

/// `sleuth` with `SLEUTH_HOME` = `home` and a clean environment for it. No
/// time limit of its own: for a child the test supervises ([`spawn`],
/// [`output_within`], [`watch`]); otherwise use [`sleuth_cmd`] or [`run`].
pub fn sleuth_command(home: &Path) -> Command {
    let mut cmd = Command::new(sleuth_path());
    hermetic(&mut cmd, home);
    cmd
}

/// `sleuth` under `home` as an `assert_cmd` command: the environment of
/// [`sleuth_command`], an empty stdin unless the test writes one, and
/// `limit` on the run — past it the child is killed and the test fails on
/// its status instead of hanging.
pub fn sleuth_within(home: &Path, limit: Duration) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::from_std(sleuth_command(home));
    cmd.write_stdin(Vec::new()).timeout(limit);
    cmd
}

/// [`sleuth_within`] with the default limit.
pub fn sleuth_cmd(home: &Path) -> assert_cmd::Command {
    sleuth_within(home, DEFAULT_LIMIT)
}

/// `sleuth args…` under `home` with `env` added (a key the test's config
/// names, a log level), empty stdin, killed and failed past `limit`: how it
/// ended and what it printed.
pub fn run_within(home: &Path, env: &[(&str, &str)], args: &[&str], limit: Duration) -> Output {
    let mut cmd = sleuth_within(home, limit);
    cmd.envs(env.iter().copied()).args(args);
    cmd.output().expect("sleuth starts")
}

/// [`run_within`] the default limit.
pub fn run(home: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    run_within(home, env, args, DEFAULT_LIMIT)
}

/// [`run`] on a blocking thread, for async tests: the test's loopback
/// servers keep answering on the runtime meanwhile.
pub async fn run_async(home: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd = sleuth_cmd(home);
    cmd.envs(env.iter().copied()).args(args);
    output_async(cmd).await
}

/// Runs `cmd` (it carries its limit): (exit code, `None` when a signal
/// ended the process; stdout; stderr).
pub fn output(cmd: &mut assert_cmd::Command) -> (Option<i32>, String, String) {
    texts(cmd.output().expect("the command starts"))
}

/// An output as (exit code, `None` when a signal ended the process;
/// stdout; stderr), the text lossily decoded.
pub fn texts(out: Output) -> (Option<i32>, String, String) {
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `cmd` on a blocking thread, for async tests (a server of the test
/// answers on the runtime meanwhile). The command carries its own limit.
pub async fn output_async(mut cmd: assert_cmd::Command) -> std::process::Output {
    tokio::task::spawn_blocking(move || cmd.output().expect("sleuth starts")).await.expect("the command's thread")
}

/// Runs any program to its end — stdin empty, stdout and stderr read while
/// it runs — killing it and failing the test past `limit`. An error only
/// when it cannot start (it is not installed).
pub fn output_of(cmd: &mut Command, limit: Duration) -> std::io::Result<Output> {
    let what = format!("{cmd:?}");
    let child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
    Ok(output_within(child, limit, &what))
}

/// Runs `cmd` as [`output_of`] does and measures its own peak resident
/// size (bytes): the largest `VmHWM` of its `/proc/<pid>/status`, read
/// every 5 ms while it runs (a rise in its last milliseconds goes unseen).
/// Not `getrusage(RUSAGE_CHILDREN)`, the largest of every child this
/// process waited for (the binary's other tests start many), nor `wait4`'s
/// peak, which counts the image the child was spawned from: this whole
/// test process.
#[cfg(target_os = "linux")]
pub fn output_and_peak_rss(cmd: &mut Command, limit: Duration) -> (Output, u64) {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{cmd:?} cannot start: {e}"));
    let (out, err) = (drain(child.stdout.take().expect("stdout")), drain(child.stderr.take().expect("stderr")));
    // `spawn` returns once the child has run `exec`: its memory from here on is its own.
    let proc_status = format!("/proc/{}/status", child.id());
    let high_water = || {
        let text = std::fs::read_to_string(&proc_status).ok()?;
        let kb = text.lines().find_map(|l| l.strip_prefix("VmHWM:"))?.trim().trim_end_matches("kB").trim();
        kb.parse::<u64>().ok().map(|kb| kb * 1024)
    };
    let deadline = Instant::now() + limit;
    let mut peak = 0;
    let status = loop {
        peak = peak.max(high_water().unwrap_or(0));
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} ran longer than {limit:?} and was killed");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let text = |rx: mpsc::Receiver<String>| rx.recv_timeout(Duration::from_secs(10)).unwrap_or_default().into_bytes();
    (Output { status, stdout: text(out), stderr: text(err) }, peak)
}

/// Runs the test `name` of `module` (its `module_path!()`) again, alone, in
/// a child of this test binary with `env` added, and fails when it fails
/// there: for a test whose code reads a variable of the process.
/// `set_var` here would race the binary's other tests on their threads.
pub fn rerun_with_env(module: &str, name: &str, env: &[(&str, &str)]) {
    // The binary's name comes first in `module_path!()`; test names start after it.
    let path = module.split_once("::").map_or(String::new(), |(_, m)| format!("{m}::"));
    let test = format!("{path}{name}");
    let mut cmd = Command::new(std::env::current_exe().expect("the test binary"));
    cmd.args([&test, "--exact", "--test-threads=1", "--nocapture"]).envs(env.iter().copied());
    let (code, stdout, stderr) = texts(output_of(&mut cmd, DEFAULT_LIMIT).expect("the test binary starts"));
    assert!(
        code == Some(0) && stdout.contains("test result: ok. 1 passed"),
        "{test}, run again with {env:?}:\n{stdout}\n{stderr}"
    );
}

/// What a finished command did.
#[derive(Debug)]
pub struct Ran {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `cmd` with `stdin` as its input, killing it (and failing) after `limit`.
pub fn run_limited(mut cmd: Command, stdin: &str, limit: Duration) -> Ran {
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the command starts");
    let input = stdin.to_string();
    let mut pipe = child.stdin.take().expect("stdin");
    std::thread::spawn(move || {
        use std::io::Write;
        let _ = pipe.write_all(input.as_bytes());
    });
    let out = drain(child.stdout.take().expect("stdout"));
    let err = drain(child.stderr.take().expect("stderr"));
    let status = wait_limited(&mut child, limit).unwrap_or_else(|| {
        let _ = child.kill();
        let _ = child.wait();
        panic!("{cmd:?} ran longer than {limit:?}; stderr so far:\n{}", err.recv().unwrap_or_default())
    });
    Ran {
        code: status.code(),
        stdout: out.recv_timeout(Duration::from_secs(10)).unwrap_or_default(),
        stderr: err.recv_timeout(Duration::from_secs(10)).unwrap_or_default(),
    }
}

/// `sleuth args…` under `home`, empty stdin, the default limit.
pub fn sleuth(home: &Path, args: &[&str]) -> Ran {
    let mut cmd = sleuth_command(home);
    cmd.args(args);
    run_limited(cmd, "", DEFAULT_LIMIT)
}

/// A child the test supervises itself (it reads its output as it runs,
/// signals it, waits for its lock): killed and reaped when dropped, so a
/// failing assertion never leaves it running — holding the test harness's
/// pipes, or a port. Derefs to the [`Child`].
pub struct Spawned(Option<Child>);

/// Starts `cmd` as a [`Spawned`] child.
pub fn spawn(cmd: &mut Command) -> Spawned {
    Spawned(Some(cmd.spawn().unwrap_or_else(|e| panic!("{cmd:?} cannot start: {e}"))))
}

impl Spawned {
    /// The child, no longer killed on drop: for [`output_within`] and
    /// [`watch`], which limit it themselves.
    pub fn into_inner(mut self) -> Child {
        self.0.take().expect("a child")
    }
}

impl Deref for Spawned {
    type Target = Child;
    fn deref(&self) -> &Child {
        self.0.as_ref().expect("a child")
    }
}

impl DerefMut for Spawned {
    fn deref_mut(&mut self) -> &mut Child {
        self.0.as_mut().expect("a child")
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            if !matches!(child.try_wait(), Ok(Some(_))) {
                let _ = child.kill();
            }
            let _ = child.wait();
        }
    }
}

/// Waits for `child` at most `limit`; past it, kills it and fails the test
/// naming `what`.
pub fn wait_or_kill(child: &mut Child, limit: Duration, what: &str) -> ExitStatus {
    wait_limited(child, limit).unwrap_or_else(|| {
        let _ = child.kill();
        let _ = child.wait();
        panic!("{what} ran longer than {limit:?} and was killed")
    })
}

/// `wait_with_output` with a limit: closes the child's stdin, reads its
/// stdout and stderr while it runs, and past `limit` kills it and fails the
/// test naming `what`.
pub fn output_within(mut child: Child, limit: Duration, what: &str) -> Output {
    drop(child.stdin.take());
    let out = child.stdout.take().map(drain);
    let err = child.stderr.take().map(drain);
    let collect = |rx: Option<mpsc::Receiver<String>>| {
        rx.and_then(|rx| rx.recv_timeout(Duration::from_secs(10)).ok()).unwrap_or_default().into_bytes()
    };
    let Some(status) = wait_limited(&mut child, limit) else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("{what} ran longer than {limit:?} and was killed; stderr:\n{}", String::from_utf8_lossy(&collect(err)))
    };
    Output { status, stdout: collect(out), stderr: collect(err) }
}

/// Watches `child` on a thread and kills it past `limit`, for a test that
/// talks to the child meanwhile. Its status comes on the receiver: `None`
/// when it was killed.
pub fn watch(mut child: Child, limit: Duration) -> mpsc::Receiver<Option<ExitStatus>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let status = wait_limited(&mut child, limit);
        if status.is_none() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = tx.send(status);
    });
    rx
}

/// Waits for `child` at most `limit`; `None` when it is still running.
pub fn wait_limited(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn drain(mut from: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = from.read_to_end(&mut bytes);
        let _ = tx.send(String::from_utf8_lossy(&bytes).into_owned());
    });
    rx
}

/// A child's stderr read line by line on a thread: wait for a line with a
/// time limit, and keep everything seen for failure messages.
pub struct Lines {
    rx: mpsc::Receiver<String>,
    pub seen: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Lines {
    pub fn follow(from: impl Read + Send + 'static) -> Self {
        let (tx, rx) = mpsc::channel();
        let seen = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let keep = seen.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(from).lines().map_while(Result::ok) {
                keep.lock().expect("lock").push_str(&format!("{line}\n"));
                if tx.send(line).is_err() {
                    // Nobody waits for lines any more; keep recording them.
                    continue;
                }
            }
        });
        Self { rx, seen }
    }

    /// The first line (from now) containing `text`, within `limit`.
    pub fn wait_for(&self, text: &str, limit: Duration) -> String {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(line) if line.contains(text) => return line,
                Ok(_) => {}
                Err(_) => panic!("no line with `{text}` within {limit:?}; seen:\n{}", self.seen.lock().expect("lock")),
            }
        }
    }

    pub fn text(&self) -> String {
        self.seen.lock().expect("lock").clone()
    }
}
