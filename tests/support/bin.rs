//! The one way new tests start the real `sleuth` binary: `SLEUTH_HOME` in a
//! temp dir, no inherited log level or server token, and a time limit on
//! every child process — a hung binary fails its test with what it printed
//! instead of hanging CI.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
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

/// `sleuth` with `SLEUTH_HOME` = `home` and a clean environment for it.
pub fn sleuth_command(home: &Path) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("sleuth"));
    cmd.env("SLEUTH_HOME", home).env_remove("SLEUTH_LOG").env_remove("SLEUTH_SERVE_TOKEN");
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

/// Runs `cmd` on a blocking thread, for async tests (a server of the test
/// answers on the runtime meanwhile). The command carries its own limit.
pub async fn output_async(mut cmd: assert_cmd::Command) -> std::process::Output {
    tokio::task::spawn_blocking(move || cmd.output().expect("sleuth starts")).await.expect("the command's thread")
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
    let mut child = cmd.spawn().expect("sleuth starts");
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
        panic!("sleuth ran longer than {limit:?}; stderr so far:\n{}", err.recv().unwrap_or_default())
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
