//! A thread per session, or one poll loop for many: what each costs with many
//! pseudo-terminals open at once. Ignored by `cargo test`; run it with
//!
//! ```text
//! cargo test --release --test loop_bench -- --ignored --nocapture --test-threads=1
//! ```
//!
//! Both designs do the session thread's work on each pty (read in batches of
//! 16 KiB, decode UTF-8, keep a transcript, feed the screen model); only how
//! they wait differs:
//!
//! - `threads`: one thread per pty, each in `poll` on its master (as the
//!   session loop does);
//! - `shared`: one thread with an `epoll` set of every master.
//!
//! `idle`: 1000 `bash --norc --noprofile` at their prompt; the growth of this
//! process's RSS and of the kernel's thread stacks (`KernelStack` in
//! /proc/meminfo, machine-wide) per pty. `busy`: 100 `cat`s of 1 MiB each at
//! once; the CPU time of this process (user + system, every thread) per MiB
//! and the wall time. Nothing here asserts a time; the numbers are for
//! BENCHMARKS.md.
#![cfg(target_os = "linux")]

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ptypilot::core::screen::Screen;
use ptypilot::core::transcript::Transcript;
use ptypilot::core::utf8::Utf8Decoder;

const BATCH: usize = 16 << 10;

/// A program on a new pty (80x24), as a session leader with the pty as its
/// controlling terminal; the master is non-blocking.
fn spawn(program: &str, args: &[&str]) -> (OwnedFd, Child) {
    let pty = nix::pty::openpty(
        Some(&nix::pty::Winsize {
            ws_row: 24,
            ws_col: 80,
            ws_xpixel: 0,
            ws_ypixel: 0,
        }),
        None,
    )
    .unwrap();
    let slave = pty.slave.as_raw_fd();
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env("TERM", "xterm-256color")
        .stdin(Stdio::from(pty.slave.try_clone().unwrap()))
        .stdout(Stdio::from(pty.slave.try_clone().unwrap()))
        .stderr(Stdio::from(pty.slave.try_clone().unwrap()));
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, move || {
            libc::setsid();
            libc::ioctl(slave, libc::TIOCSCTTY as _, 0);
            Ok(())
        });
    }
    let child = cmd.spawn().unwrap();
    drop(pty.slave);
    let master = pty.master;
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(master.as_raw_fd(), libc::F_GETFL);
        libc::fcntl(master.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK);
    }
    (master, child)
}

/// What a session does with its output.
struct Sink {
    decoder: Utf8Decoder,
    transcript: Transcript,
    screen: Screen,
    batch: Vec<u8>,
    text: String,
    replies: Vec<u8>,
    received: usize,
    eof: bool,
}

impl Sink {
    fn new() -> Self {
        Sink {
            decoder: Utf8Decoder::default(),
            transcript: Transcript::new(8 << 20),
            screen: Screen::new(24, 80, 1000),
            batch: Vec::new(),
            text: String::new(),
            replies: Vec::new(),
            received: 0,
            eof: false,
        }
    }

    /// Reads until nothing more or a batch is full, then processes the batch.
    fn read_batch(&mut self, fd: RawFd) {
        self.batch.clear();
        while self.batch.len() < BATCH {
            let room = BATCH - self.batch.len();
            self.batch.reserve(room);
            let spare = self.batch.spare_capacity_mut();
            // SAFETY: `spare` has room for `room` bytes.
            let n = unsafe { libc::read(fd, spare.as_mut_ptr().cast(), room) };
            if n > 0 {
                // SAFETY: `read` initialised `n` bytes.
                unsafe { self.batch.set_len(self.batch.len() + n as usize) };
                continue;
            }
            let again =
                n < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EAGAIN);
            let intr = n < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR);
            if intr {
                continue;
            }
            if !again {
                self.eof = true;
            }
            break;
        }
        self.received += self.batch.len();
        self.text.clear();
        self.decoder.decode(&self.batch, &mut self.text);
        self.transcript.push(&self.text);
        self.screen.process(&self.batch, &mut self.replies);
        self.replies.clear();
    }
}

fn rss_kb() -> u64 {
    status_field("/proc/self/status", "VmRSS:")
}

fn status_field(file: &str, name: &str) -> u64 {
    let text = std::fs::read_to_string(file).unwrap();
    text.lines()
        .find(|l| l.starts_with(name))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn cpu() -> Duration {
    // SAFETY: getrusage writes the struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let t = |tv: libc::timeval| Duration::new(tv.tv_sec as u64, tv.tv_usec as u32 * 1000);
    t(ru.ru_utime) + t(ru.ru_stime)
}

/// One pty served by its own thread, which polls the master and the stop
/// pipe (whose write end is closed to stop) with no timeout, as the session
/// loop does; a 256 KiB stack, as the session thread's.
fn thread_per_pty(
    master: OwnedFd,
    stop: Arc<AtomicBool>,
    stop_fd: RawFd,
    done: Arc<AtomicUsize>,
) -> std::thread::JoinHandle<usize> {
    std::thread::Builder::new()
        .name("loop-bench".into())
        .stack_size(256 << 10)
        .spawn(move || {
            let mut sink = Sink::new();
            while !sink.eof && !stop.load(Ordering::Relaxed) {
                let mut fds = [
                    libc::pollfd {
                        fd: master.as_raw_fd(),
                        events: libc::POLLIN,
                        revents: 0,
                    },
                    libc::pollfd {
                        fd: stop_fd,
                        events: libc::POLLIN,
                        revents: 0,
                    },
                ];
                // SAFETY: a valid pollfd array.
                let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
                if n > 0 && fds[0].revents != 0 {
                    sink.read_batch(master.as_raw_fd());
                }
            }
            done.fetch_add(1, Ordering::Relaxed);
            sink.received
        })
        .unwrap()
}

/// Every pty served by one thread with an epoll set (and the stop pipe).
fn shared_loop(
    masters: Vec<OwnedFd>,
    stop: Arc<AtomicBool>,
    stop_fd: RawFd,
    done: Arc<AtomicUsize>,
) -> std::thread::JoinHandle<usize> {
    std::thread::Builder::new()
        .name("loop-bench".into())
        .spawn(move || {
            // SAFETY: epoll calls on descriptors we own.
            let ep = unsafe { OwnedFd::from_raw_fd(libc::epoll_create1(libc::EPOLL_CLOEXEC)) };
            let mut sinks: Vec<Sink> = masters.iter().map(|_| Sink::new()).collect();
            for (i, m) in masters.iter().enumerate() {
                let mut ev = libc::epoll_event {
                    events: libc::EPOLLIN as u32,
                    u64: i as u64,
                };
                unsafe {
                    libc::epoll_ctl(ep.as_raw_fd(), libc::EPOLL_CTL_ADD, m.as_raw_fd(), &mut ev)
                };
            }
            let mut ev = libc::epoll_event {
                events: libc::EPOLLIN as u32,
                u64: u64::MAX,
            };
            unsafe { libc::epoll_ctl(ep.as_raw_fd(), libc::EPOLL_CTL_ADD, stop_fd, &mut ev) };
            let mut open = masters.len();
            let mut events = vec![libc::epoll_event { events: 0, u64: 0 }; 256];
            while open > 0 && !stop.load(Ordering::Relaxed) {
                let n = unsafe { libc::epoll_wait(ep.as_raw_fd(), events.as_mut_ptr(), 256, -1) };
                for ev in &events[..n.max(0) as usize] {
                    if ev.u64 == u64::MAX {
                        continue;
                    }
                    let i = ev.u64 as usize;
                    let sink = &mut sinks[i];
                    sink.read_batch(masters[i].as_raw_fd());
                    if sink.eof {
                        open -= 1;
                        done.fetch_add(1, Ordering::Relaxed);
                        unsafe {
                            libc::epoll_ctl(
                                ep.as_raw_fd(),
                                libc::EPOLL_CTL_DEL,
                                masters[i].as_raw_fd(),
                                std::ptr::null_mut(),
                            )
                        };
                    }
                }
            }
            sinks.iter().map(|s| s.received).sum()
        })
        .unwrap()
}

/// Starts `n` programs and serves them the `shared` way or a thread each.
fn serve(
    n: usize,
    shared: bool,
    program: &str,
    args: &[&str],
    stop: &Arc<AtomicBool>,
    stop_fd: RawFd,
    done: &Arc<AtomicUsize>,
) -> (Vec<Child>, Vec<std::thread::JoinHandle<usize>>) {
    let mut children = Vec::new();
    let mut masters = Vec::new();
    for _ in 0..n {
        let (m, c) = spawn(program, args);
        children.push(c);
        masters.push(m);
    }
    let handles = if shared {
        vec![shared_loop(masters, stop.clone(), stop_fd, done.clone())]
    } else {
        masters
            .into_iter()
            .map(|m| thread_per_pty(m, stop.clone(), stop_fd, done.clone()))
            .collect()
    };
    (children, handles)
}

#[test]
#[ignore]
fn idle_sessions() {
    let n: usize = std::env::var("LOOP_BENCH_IDLE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    for shared in [false, true, false, true] {
        let stop = Arc::new(AtomicBool::new(false));
        let done = Arc::new(AtomicUsize::new(0));
        let rss0 = rss_kb();
        let ks0 = status_field("/proc/meminfo", "KernelStack:");
        let threads0 = status_field("/proc/self/status", "Threads:");
        let (stop_r, stop_w) = nix::unistd::pipe().unwrap();
        let (mut children, handles) = serve(
            n,
            shared,
            "bash",
            &["--norc", "--noprofile"],
            &stop,
            stop_r.as_raw_fd(),
            &done,
        );
        std::thread::sleep(Duration::from_secs(3));
        let rss = rss_kb() - rss0;
        let ks = status_field("/proc/meminfo", "KernelStack:").saturating_sub(ks0);
        let threads = status_field("/proc/self/status", "Threads:") - threads0;
        let c0 = cpu();
        std::thread::sleep(Duration::from_secs(2));
        let idle_cpu = cpu() - c0;
        println!(
            "idle {n} bash, {:7}: RSS +{:.1} KB per pty, kernel stacks +{:.1} KB per pty (machine-wide), \
             +{threads} threads, CPU while idle {:?} per 2 s",
            if shared { "shared" } else { "threads" },
            rss as f64 / n as f64,
            ks as f64 / n as f64,
            idle_cpu
        );
        stop.store(true, Ordering::Relaxed);
        // Closing the write end wakes every poll (the read end hangs up).
        drop(stop_w);
        for c in &mut children {
            let _ = c.kill();
        }
        for h in handles {
            let _ = h.join();
        }
        for c in &mut children {
            let _ = c.wait();
        }
    }
}

#[test]
#[ignore]
fn busy_sessions() {
    let n: usize = std::env::var("LOOP_BENCH_BUSY")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let file = std::env::temp_dir().join("ptypilot-loop-bench.txt");
    let line = b"#define __GLIBC_USE_IEC_60559_BFP_EXT_C2X 1 /* a header-like line */\n";
    let data: Vec<u8> = line.iter().copied().cycle().take(1 << 20).collect();
    std::fs::write(&file, &data).unwrap();
    let path = file.display().to_string();
    for round in 0..6 {
        let shared = round % 2 == 1;
        let stop = Arc::new(AtomicBool::new(false));
        let done = Arc::new(AtomicUsize::new(0));
        let t0 = Instant::now();
        let c0 = cpu();
        let (stop_r, _stop_w) = nix::unistd::pipe().unwrap();
        let (mut children, handles) =
            serve(n, shared, "cat", &[&path], &stop, stop_r.as_raw_fd(), &done);
        let received: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
        let wall = t0.elapsed();
        let used = cpu() - c0;
        for c in &mut children {
            let _ = c.wait();
        }
        let mib = received as f64 / (1 << 20) as f64;
        println!(
            "busy {n} cat of 1 MiB, {:7}: {:.1} MiB/s, CPU {:.2} ms per MiB",
            if shared { "shared" } else { "threads" },
            mib / wall.as_secs_f64(),
            used.as_secs_f64() * 1000.0 / mib
        );
    }
}
