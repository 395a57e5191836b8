//! Running one command with `bash -c` in its own process group: stdout and stderr through
//! one pipe (so they interleave as on a terminal), a deadline, a cancel flag polled while it
//! runs, and the whole group killed on either, so `sleep 30 | cat` dies with its shell.
//!
//! Background jobs the command leaves behind may live on only if they let go of our pipe
//! (`nohup job > log 2>&1 &`); one still writing to it after the shell has exited is killed
//! with the group shortly after, or the tool would never return.

use std::collections::VecDeque;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// Output kept from the start and from the end of a command; what lies between is only
/// counted. Far more than the 50,000 characters a result shows, so the cut there decides.
const HEAD_BYTES: usize = 4 << 20;
const TAIL_BYTES: usize = 4 << 20;
/// Longest pause between checks of the child, the deadline and the cancel flag.
const POLL: Duration = Duration::from_millis(50);
/// How long the pipe may stay open after the shell exits before its holders are killed.
const LINGER: Duration = Duration::from_millis(200);

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The shell exited with this code (128 + N for a signal N).
    Exited(i32),
    TimedOut,
    Cancelled,
}

/// A finished run: how it ended and what it printed.
#[derive(Debug)]
pub struct Run {
    pub end: End,
    pub output: String,
    /// Bytes printed but not kept (between head and tail).
    pub dropped: u64,
}

/// What the reader thread has collected.
#[derive(Default)]
struct Capture {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    dropped: u64,
}

impl Capture {
    fn push(&mut self, mut bytes: &[u8]) {
        let room = HEAD_BYTES - self.head.len();
        let into_head = room.min(bytes.len());
        self.head.extend_from_slice(&bytes[..into_head]);
        bytes = &bytes[into_head..];
        self.tail.extend(bytes);
        let excess = self.tail.len().saturating_sub(TAIL_BYTES);
        self.tail.drain(..excess);
        self.dropped += excess as u64;
    }

    fn text(&self) -> String {
        let mut bytes = self.head.clone();
        bytes.extend(self.tail.iter());
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// Runs `script` with `bash -c` in `cmd`'s directory and environment (already set by the
/// caller), until it exits, `timeout` passes or `cancel` is set.
pub fn run(mut cmd: Command, timeout: Duration, cancel: &AtomicBool) -> std::io::Result<Run> {
    let (mut reader, writer) = std::io::pipe()?;
    cmd.stdin(Stdio::null())
        .stdout(writer.try_clone()?)
        .stderr(writer)
        .process_group(0);
    let mut child = cmd.spawn()?;
    // Our copies of the write end must close, or the pipe never reaches end of file.
    drop(cmd);

    let capture = Arc::new(Mutex::new(Capture::default()));
    let eof = Arc::new(AtomicBool::new(false));
    {
        let capture = Arc::clone(&capture);
        let eof = Arc::clone(&eof);
        thread::spawn(move || {
            // `copy` retries an interrupted read; any other error ends the output as the
            // end of the pipe would.
            let _ = std::io::copy(&mut reader, &mut Sink(&capture));
            eof.store(true, Ordering::Release);
        });
    }

    let end = supervise(&mut child, timeout, cancel)?;
    if !wait_for(&eof, LINGER) {
        kill_group(&child);
        // A holder that left our group (setsid) cannot be killed from here; stop waiting
        // for it and keep what arrived. The reader thread ends when the holder does.
        wait_for(&eof, LINGER);
    }
    let capture = lock(&capture);
    Ok(Run {
        end,
        output: capture.text(),
        dropped: capture.dropped,
    })
}

/// The reader thread's end of the capture.
struct Sink<'a>(&'a Mutex<Capture>);

impl std::io::Write for Sink<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        lock(self.0).push(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn supervise(child: &mut Child, timeout: Duration, cancel: &AtomicBool) -> std::io::Result<End> {
    let deadline = Instant::now() + timeout;
    // Short commands are the common case: check again soon, then back off to POLL.
    let mut pause = Duration::from_millis(2);
    loop {
        let status = match child.try_wait() {
            Ok(s) => s,
            Err(e) => {
                // Without a way to watch it, the command must not run on unsupervised.
                kill_group(child);
                let _ = child.wait();
                return Err(e);
            }
        };
        if let Some(status) = status {
            let code = status
                .code()
                .or_else(|| status.signal().map(|s| 128 + s))
                .unwrap_or(-1);
            return Ok(End::Exited(code));
        }
        let stop = if cancel.load(Ordering::Relaxed) {
            Some(End::Cancelled)
        } else if Instant::now() >= deadline {
            Some(End::TimedOut)
        } else {
            None
        };
        if let Some(end) = stop {
            kill_group(child);
            child.wait()?;
            return Ok(end);
        }
        thread::sleep(pause.min(deadline.saturating_duration_since(Instant::now())));
        pause = (pause * 2).min(POLL);
    }
}

fn kill_group(child: &Child) {
    let Ok(pgid) = i32::try_from(child.id()) else {
        return;
    };
    // SAFETY: kill(2) takes plain integers and touches no memory of ours. The group id is
    // the child's pid (it was started with process_group(0)). Before the child is reaped that
    // id is ours; after, the kernel does not hand the number out again while any process
    // is still in the group, and with none left the call finds nothing (ESRCH).
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

fn wait_for(flag: &AtomicBool, limit: Duration) -> bool {
    let until = Instant::now() + limit;
    while !flag.load(Ordering::Acquire) {
        if Instant::now() >= until {
            return false;
        }
        thread::sleep(Duration::from_millis(2));
    }
    true
}

fn lock(capture: &Mutex<Capture>) -> std::sync::MutexGuard<'_, Capture> {
    // A panic in the reader thread leaves the bytes it had stored intact.
    capture.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bash(script: &str) -> Command {
        let mut cmd = Command::new("bash");
        cmd.arg("-c").arg(script);
        cmd
    }

    #[test]
    fn stdout_and_stderr_share_one_stream() {
        let never = AtomicBool::new(false);
        let run = run(
            bash("echo out; echo err >&2; exit 3"),
            Duration::from_secs(10),
            &never,
        )
        .expect("run");
        assert_eq!(run.end, End::Exited(3));
        assert_eq!(run.output, "out\nerr\n");
    }

    #[test]
    fn a_background_job_holding_the_pipe_is_killed_instead_of_waited_for() {
        // Waited for, the job would print its last line before the call returned.
        let never = AtomicBool::new(false);
        let run = run(
            bash("(sleep 20; echo late) & echo done"),
            Duration::from_secs(60),
            &never,
        )
        .expect("run");
        assert_eq!(run.end, End::Exited(0));
        assert_eq!(run.output, "done\n");
    }

    #[test]
    fn capture_keeps_head_and_tail_and_counts_the_middle() {
        let mut c = Capture::default();
        c.push(&vec![b'a'; HEAD_BYTES]);
        c.push(&[b'b'; 10]);
        c.push(&vec![b'c'; TAIL_BYTES]);
        assert_eq!(c.dropped, 10);
        assert_eq!(c.head.len(), HEAD_BYTES);
        assert!(c.tail.iter().all(|b| *b == b'c'));
    }

    #[test]
    fn a_deadline_or_a_cancel_ends_the_whole_group() {
        let never = AtomicBool::new(false);
        let timed = run(
            bash("echo first; sleep 30 | cat"),
            Duration::from_millis(300),
            &never,
        )
        .expect("run");
        assert_eq!(timed.end, End::TimedOut);
        assert_eq!(timed.output, "first\n");
        let cancel = AtomicBool::new(true);
        let cancelled = run(bash("sleep 30"), Duration::from_secs(60), &cancel).expect("run");
        assert_eq!(cancelled.end, End::Cancelled);
    }

    /// Whether `pid` is a process that has not finished (a zombie has finished).
    fn running(pid: &str) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            !stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
    }

    /// Asserts that the process whose id `output` holds ends within two seconds (an orphan
    /// is reaped by whoever adopts it, which may take a moment).
    fn assert_ends(output: &str) {
        let pid = output.trim();
        assert!(pid.parse::<u32>().is_ok(), "{pid:?}");
        let until = Instant::now() + Duration::from_secs(2);
        while running(pid) && Instant::now() < until {
            thread::sleep(Duration::from_millis(10));
        }
        assert!(!running(pid), "process {pid} was left running");
    }

    #[test]
    fn the_group_is_killed_not_only_the_shell() {
        let never = AtomicBool::new(false);
        let timed = run(
            bash("sleep 30 & echo $!; wait"),
            Duration::from_millis(300),
            &never,
        )
        .expect("run");
        assert_eq!(timed.end, End::TimedOut);
        assert_ends(&timed.output);
    }

    #[test]
    fn a_job_that_finishes_soon_after_the_shell_keeps_its_output() {
        let never = AtomicBool::new(false);
        let run = run(
            bash("(sleep 0.02; echo late) & echo now"),
            Duration::from_secs(60),
            &never,
        )
        .expect("run");
        assert_eq!(run.end, End::Exited(0));
        assert_eq!(run.output, "now\nlate\n");
    }

    #[test]
    fn a_job_left_holding_the_pipe_after_the_shell_exits_is_killed() {
        let never = AtomicBool::new(false);
        let run = run(bash("sleep 30 & echo $!"), Duration::from_secs(60), &never).expect("run");
        assert_eq!(run.end, End::Exited(0));
        assert_ends(&run.output);
    }

    #[test]
    fn a_signal_is_reported_as_128_plus_its_number() {
        let never = AtomicBool::new(false);
        let killed = run(bash("kill -TERM $$"), Duration::from_secs(10), &never).expect("run");
        assert_eq!(killed.end, End::Exited(143));
    }

    #[test]
    fn capture_splits_a_chunk_across_the_head_and_joins_the_text() {
        let mut c = Capture::default();
        c.push(&vec![b'a'; HEAD_BYTES - 2]);
        c.push(b"bcde");
        assert_eq!(c.head.len(), HEAD_BYTES);
        assert_eq!(c.head[HEAD_BYTES - 2..], *b"bc");
        assert_eq!(c.tail.iter().copied().collect::<Vec<u8>>(), b"de");
        assert_eq!(c.dropped, 0);
        assert!(c.text().ends_with("bcde"));
        assert_eq!(c.text().len(), HEAD_BYTES + 2);
        c.push(&vec![b'z'; TAIL_BYTES]);
        assert_eq!(c.dropped, 2);
        assert_eq!(c.tail.len(), TAIL_BYTES);
    }
}
