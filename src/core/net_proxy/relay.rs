//! Moving the bytes of a connection the proxy made, both ways, until both
//! sides are done: the end of one direction is passed on as a half-close
//! (`shutdown(SHUT_WR)`) and the other keeps going; an error in either ends
//! both, as `tokio::io::copy_bidirectional` does.
//!
//! On Linux the bytes go from one socket to the other through a pipe with
//! `splice(2)`, without passing through this process's memory: a large
//! download through the proxy costs two system calls per pipe-full, not a
//! read and a write of every byte into a buffer. The sockets' readiness is
//! tokio's (`try_io`), so a slow reader holds the data in the pipe and the
//! socket buffers (backpressure) and nothing blocks the runtime. A pipe is
//! filled only when empty, so `EAGAIN` from a splice always names the
//! socket's readiness, never a full pipe.
//!
//! `splice` into a socket whose peer is gone raises `SIGPIPE` (it has no
//! `MSG_NOSIGNAL`): it is used only when the process ignores that signal
//! (Node, Deno and Rust programs do); otherwise, and where pipes cannot be
//! made, the copy goes through two buffers of [`BUFFER`] bytes.

use tokio::net::TcpStream;

/// The copy buffers' size each way when the bytes go through this process
/// (64 KiB: tokio's default of 8 KiB costs a quarter of the throughput of a
/// large download).
pub(super) const BUFFER: usize = 64 << 10;

/// Relays `a` and `b` until both directions ended or one failed.
pub(super) async fn relay(mut a: TcpStream, mut b: TcpStream) {
    #[cfg(target_os = "linux")]
    if let Some(pipes) = splice::Pipes::new() {
        let _ = splice::relay(&a, &b, &pipes).await;
        return;
    }
    let _ = tokio::io::copy_bidirectional_with_sizes(&mut a, &mut b, BUFFER, BUFFER).await;
}

#[cfg(target_os = "linux")]
mod splice {
    use std::io;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

    use tokio::io::Interest;
    use tokio::net::TcpStream;

    /// Each pipe's size asked for (`F_SETPIPE_SZ`): 256 KiB, 64 pages. Pipes
    /// count against the user's `pipe-user-pages-soft` (16384 pages), so a
    /// hundred connections at once stay under it; past it the kernel gives
    /// smaller pipes, which still work.
    const PIPE_SIZE: usize = 256 << 10;

    /// One pipe each way.
    pub(super) struct Pipes {
        a_to_b: Pipe,
        b_to_a: Pipe,
        /// Bytes one splice moves in at most (the pipe's size).
        chunk: usize,
    }

    struct Pipe {
        read: OwnedFd,
        write: OwnedFd,
    }

    impl Pipe {
        fn new() -> io::Result<Pipe> {
            let mut fds = [0; 2];
            // SAFETY: pipe2 writes two descriptors into the array we own.
            if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_NONBLOCK | libc::O_CLOEXEC) } != 0 {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: both descriptors were just made and are ours.
            let (read, write) =
                unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
            Ok(Pipe { read, write })
        }

        /// Its size after asking for [`PIPE_SIZE`] (the default when refused).
        fn grow(&self) -> usize {
            // SAFETY: fcntl on a descriptor we own.
            unsafe {
                libc::fcntl(
                    self.write.as_raw_fd(),
                    libc::F_SETPIPE_SZ,
                    PIPE_SIZE as libc::c_int,
                );
                let size = libc::fcntl(self.write.as_raw_fd(), libc::F_GETPIPE_SZ);
                if size > 0 { size as usize } else { 4096 }
            }
        }
    }

    impl Pipes {
        /// Two pipes, or `None` when `splice` must not be used (`SIGPIPE`
        /// not ignored) or no pipe could be made.
        pub(super) fn new() -> Option<Pipes> {
            if !sigpipe_ignored() {
                return None;
            }
            let a_to_b = Pipe::new().ok()?;
            let b_to_a = Pipe::new().ok()?;
            let chunk = a_to_b.grow().min(b_to_a.grow());
            Some(Pipes {
                a_to_b,
                b_to_a,
                chunk,
            })
        }
    }

    /// True when this process ignores `SIGPIPE` (read each time: cheap, and
    /// an embedding program may change it).
    fn sigpipe_ignored() -> bool {
        // SAFETY: reads the disposition into a zeroed struct we own.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            libc::sigaction(libc::SIGPIPE, std::ptr::null(), &mut old) == 0
                && old.sa_sigaction == libc::SIG_IGN
        }
    }

    /// Both directions; the first error ends both.
    pub(super) async fn relay(a: &TcpStream, b: &TcpStream, pipes: &Pipes) -> io::Result<()> {
        tokio::try_join!(
            one_way(a, b, &pipes.a_to_b, pipes.chunk),
            one_way(b, a, &pipes.b_to_a, pipes.chunk),
        )?;
        Ok(())
    }

    /// `from` into `pipe` until its end, each pipe-full drained into `to`;
    /// at the end `to` is shut for writing.
    async fn one_way(
        from: &TcpStream,
        to: &TcpStream,
        pipe: &Pipe,
        chunk: usize,
    ) -> io::Result<()> {
        let (src, dst) = (from.as_raw_fd(), to.as_raw_fd());
        loop {
            // The pipe is empty here.
            let got = loop {
                from.readable().await?;
                match from.try_io(Interest::READABLE, || {
                    splice(src, pipe.write.as_raw_fd(), chunk)
                }) {
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                    other => break other?,
                }
            };
            if got == 0 {
                // SAFETY: shutdown on a socket the caller holds.
                unsafe { libc::shutdown(dst, libc::SHUT_WR) };
                return Ok(());
            }
            let mut left = got;
            while left > 0 {
                to.writable().await?;
                match to.try_io(Interest::WRITABLE, || {
                    splice(pipe.read.as_raw_fd(), dst, left)
                }) {
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    Err(e) => return Err(e),
                    Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                    Ok(n) => left -= n,
                }
            }
        }
    }

    /// One non-blocking `splice` of up to `len` bytes; `EINTR` is retried.
    fn splice(from: RawFd, to: RawFd, len: usize) -> io::Result<usize> {
        loop {
            // SAFETY: splice between descriptors the caller holds; no
            // offsets (sockets and pipes have none).
            let n = unsafe {
                libc::splice(
                    from,
                    std::ptr::null_mut(),
                    to,
                    std::ptr::null_mut(),
                    len,
                    libc::SPLICE_F_MOVE | libc::SPLICE_F_NONBLOCK,
                )
            };
            if n >= 0 {
                return Ok(n as usize);
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }
}
