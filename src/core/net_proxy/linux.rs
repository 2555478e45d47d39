//! The bridge into a Linux network namespace: the child's step (after it
//! entered its new namespace, before `execve`), and what the sandbox's
//! supervisor notes of the connections that bypass the proxy.
//!
//! The child, holding `CAP_NET_ADMIN` in the namespace (root, or the owner
//! of the user namespace made with it), brings `lo` up (`SIOCSIFFLAGS`) and
//! listens on `127.0.0.1:PORT` for the proxy's port and each `local` port
//! ([`ChildStep::listen`]); the sandbox's supervisor
//! (`sandbox/linux/supervisor.rs`) hands the listening sockets to this
//! process with its own descriptor, before `execve`. The parent accepts on
//! them ([`super::Bridge`]): connections it accepts come from inside the
//! namespace, and the namespace lives as long as the program or the
//! parent's listeners do.
//!
//! The supervisor makes the program's `connect`, `sendto` and `sendmsg`
//! itself; for an address other than loopback (none can be reached from
//! the namespace: the kernel answers "no route") it notes what
//! [`describe`] says: "a direct connection to 93.184.216.34:443", "a DNS
//! query to 10.0.0.2:53", "UDP to ...".

use std::io;

/// Most listeners one program gets: the proxy's and the `local` ports.
pub(crate) const MAX_FDS: usize = super::MAX_LOCAL_PORTS + 1;

/// What the child does: made in the parent, no allocation after the fork.
pub(crate) struct ChildStep {
    ports: [u16; MAX_FDS],
    count: usize,
}

/// The listeners the child made, until the supervisor's step sends them.
pub(crate) type Listeners = [libc::c_int; MAX_FDS];

/// The child's step; `ports`: the proxy's port first, then the `local`
/// ones.
pub(crate) fn pair(ports: &[u16]) -> io::Result<ChildStep> {
    if ports.len() > MAX_FDS || ports.is_empty() {
        return Err(io::Error::from(io::ErrorKind::InvalidInput));
    }
    let mut all = [0u16; MAX_FDS];
    all[..ports.len()].copy_from_slice(ports);
    Ok(ChildStep {
        ports: all,
        count: ports.len(),
    })
}

fn errno() -> i32 {
    // SAFETY: glibc's per-thread errno location.
    unsafe { *libc::__errno_location() }
}

impl ChildStep {
    /// How many listeners [`ChildStep::listen`] makes.
    pub(crate) fn count(&self) -> usize {
        self.count
    }

    /// Brings `lo` up and listens on each port; the listeners.
    ///
    /// # Safety
    /// In the child of a `fork`, inside its new network namespace, before
    /// `execve`: system calls only, on memory made before the fork.
    pub(crate) unsafe fn listen(&self) -> Result<Listeners, i32> {
        // SAFETY (the whole body): system calls on locals and on the
        // ports made before the fork.
        unsafe {
            let s = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
            if s < 0 {
                return Err(errno());
            }
            let mut ifr: libc::ifreq = std::mem::zeroed();
            for (d, b) in ifr.ifr_name.iter_mut().zip(b"lo\0") {
                *d = *b as libc::c_char;
            }
            if libc::ioctl(s, libc::SIOCGIFFLAGS as _, &mut ifr) != 0 {
                let e = errno();
                libc::close(s);
                return Err(e);
            }
            ifr.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
            let up = libc::ioctl(s, libc::SIOCSIFFLAGS as _, &ifr);
            let e = errno();
            libc::close(s);
            if up != 0 {
                return Err(e);
            }
            let mut fds: Listeners = [-1; MAX_FDS];
            for (slot, &port) in fds.iter_mut().zip(&self.ports[..self.count]) {
                let l = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
                if l < 0 {
                    return Err(errno());
                }
                *slot = l;
                let one: libc::c_int = 1;
                libc::setsockopt(
                    l,
                    libc::SOL_SOCKET,
                    libc::SO_REUSEADDR,
                    (&one as *const libc::c_int).cast(),
                    4,
                );
                let mut addr: libc::sockaddr_in = std::mem::zeroed();
                addr.sin_family = libc::AF_INET as libc::sa_family_t;
                addr.sin_port = port.to_be();
                addr.sin_addr.s_addr = u32::from(std::net::Ipv4Addr::LOCALHOST).to_be();
                if libc::bind(
                    l,
                    (&addr as *const libc::sockaddr_in).cast(),
                    std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
                ) != 0
                    || libc::listen(l, 512) != 0
                {
                    return Err(errno());
                }
            }
            Ok(fds)
        }
    }
}

/// The refusal a call to the address `buf` (a `sockaddr`, as the program
/// passed it) is, when it names an address other than loopback (none can
/// be reached from the namespace); `connect`: a connection, else a
/// datagram.
pub(crate) fn describe(buf: &[u8], connect: bool) -> Option<String> {
    let got = buf.len();
    if got < 4 {
        return None;
    }
    let family = u16::from_ne_bytes([buf[0], buf[1]]) as i32;
    let port = u16::from_be_bytes([buf[2], buf[3]]);
    let ip: std::net::IpAddr = match family {
        libc::AF_INET if got >= 8 => std::net::Ipv4Addr::new(buf[4], buf[5], buf[6], buf[7]).into(),
        libc::AF_INET6 if got >= 24 => {
            let mut a = [0u8; 16];
            a.copy_from_slice(&buf[8..24]);
            let v6 = std::net::Ipv6Addr::from(a);
            v6.to_ipv4_mapped().map_or(v6.into(), Into::into)
        }
        _ => return None,
    };
    if ip.is_loopback() || ip.is_unspecified() {
        return None;
    }
    let at = match ip {
        std::net::IpAddr::V6(v6) => format!("[{v6}]:{port}"),
        v4 => format!("{v4}:{port}"),
    };
    Some(if port == 53 {
        format!(
            "a DNS query to {at} (the sandbox has no DNS; only the proxy is reachable, set HTTPS_PROXY)"
        )
    } else if connect {
        format!("a direct connection to {at} (only the proxy is reachable; set HTTPS_PROXY)")
    } else {
        format!("UDP to {at} (only the proxy is reachable; set HTTPS_PROXY)")
    })
}
