//! Descriptors on Unix: what our own and another process's descriptors
//! refer to (see the parent module for where each fact comes from).

use std::os::fd::{AsRawFd, BorrowedFd};
use std::path::Path;

use super::FdTarget;
use crate::core::proc_tree::Pid;

impl FdTarget {
    // `dev_t` is 64 bits on Linux, 32 on macOS: the casts are needed there.
    #[allow(clippy::unnecessary_cast)]
    fn from_stat(st: &libc::stat) -> FdTarget {
        match st.st_mode & libc::S_IFMT {
            libc::S_IFCHR => FdTarget::Device {
                rdev: st.st_rdev as u64,
            },
            libc::S_IFIFO => FdTarget::Fifo {
                dev: st.st_dev as u64,
                ino: st.st_ino as u64,
            },
            _ => FdTarget::Other,
        }
    }
}

/// What our own descriptor `fd` refers to (`fstat`).
pub fn own(fd: BorrowedFd<'_>) -> FdTarget {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: fstat writes a whole `stat` into the buffer on success.
    if unsafe { libc::fstat(fd.as_raw_fd(), st.as_mut_ptr()) } != 0 {
        return FdTarget::Unknown;
    }
    // SAFETY: fstat succeeded, so the buffer is initialised.
    let st = unsafe { st.assume_init() };
    FdTarget::from_stat(&st)
}

/// What the file at `path` is (`stat`, following links): for a terminal's
/// device path, the device number its descriptors show.
pub fn of_path(path: &Path) -> FdTarget {
    stat_path(path).unwrap_or(FdTarget::Unknown)
}

fn stat_path(path: &Path) -> Option<FdTarget> {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: a NUL-terminated path; stat writes a whole `stat` on success.
    if unsafe { libc::stat(c_path.as_ptr(), st.as_mut_ptr()) } != 0 {
        let errno = std::io::Error::last_os_error().raw_os_error();
        return (errno == Some(libc::ENOENT)).then_some(FdTarget::Closed);
    }
    // SAFETY: stat succeeded, so the buffer is initialised.
    let st = unsafe { st.assume_init() };
    Some(FdTarget::from_stat(&st))
}

/// What descriptor `fd` of process `pid` refers to.
#[cfg(target_os = "linux")]
pub fn of_process(pid: Pid, fd: i32) -> FdTarget {
    // ENOENT: the descriptor is closed (or the process is gone, which the
    // caller learns from its exit).
    of_path(Path::new(&format!("/proc/{pid}/fd/{fd}")))
}

/// What descriptor `fd` of process `pid` refers to.
#[cfg(target_os = "macos")]
pub fn of_process(pid: Pid, fd: i32) -> FdTarget {
    macos::of_process(pid, fd)
}

/// What descriptor `fd` of process `pid` refers to (unknown on this system).
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
pub fn of_process(_pid: Pid, _fd: i32) -> FdTarget {
    FdTarget::Unknown
}

#[cfg(target_os = "macos")]
mod macos {
    //! `proc_pidfdinfo` with `PROC_PIDFDVNODEPATHINFO`; the structures as
    //! `<sys/proc_info.h>` declares them (the libc crate has the inner
    //! `vnode_info_path`, not the outer one or the flavor).

    use super::FdTarget;
    use crate::core::proc_tree::Pid;

    /// `PROC_PIDFDVNODEPATHINFO` (`<sys/proc_info.h>`).
    const PROC_PIDFDVNODEPATHINFO: libc::c_int = 2;

    /// `struct proc_fileinfo`.
    #[repr(C)]
    struct ProcFileinfo {
        fi_openflags: u32,
        fi_status: u32,
        fi_offset: libc::off_t,
        fi_type: i32,
        fi_guardflags: u32,
    }

    /// `struct vnode_fdinfowithpath`.
    #[repr(C)]
    struct VnodeFdinfoWithPath {
        pfi: ProcFileinfo,
        pvip: libc::vnode_info_path,
    }

    pub(super) fn of_process(pid: Pid, fd: i32) -> FdTarget {
        let mut info = std::mem::MaybeUninit::<VnodeFdinfoWithPath>::zeroed();
        let size = std::mem::size_of::<VnodeFdinfoWithPath>() as libc::c_int;
        // SAFETY: the kernel writes at most `size` bytes into the buffer.
        let n = unsafe {
            libc::proc_pidfdinfo(
                pid,
                fd,
                PROC_PIDFDVNODEPATHINFO,
                info.as_mut_ptr().cast(),
                size,
            )
        };
        if n < size {
            return match std::io::Error::last_os_error().raw_os_error() {
                Some(libc::EBADF) => FdTarget::Closed,
                // Open, but not a vnode: an anonymous pipe, a socket.
                Some(libc::ENOTSUP) | Some(libc::EINVAL) => FdTarget::Other,
                _ => FdTarget::Unknown,
            };
        }
        // SAFETY: the call filled the whole structure (plain integers).
        let st = unsafe { &info.assume_init().pvip.vip_vi.vi_stat };
        match libc::mode_t::from(st.vst_mode) & libc::S_IFMT {
            libc::S_IFCHR => FdTarget::Device {
                rdev: st.vst_rdev as u64,
            },
            libc::S_IFIFO => FdTarget::Fifo {
                dev: st.vst_dev as u64,
                ino: st.vst_ino,
            },
            _ => FdTarget::Other,
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    #[test]
    fn our_own_descriptors_as_another_process_sees_them() {
        let me = std::process::id() as Pid;
        let (read, write) = nix::unistd::pipe().unwrap();
        let pipe = own(read.as_fd());
        assert!(matches!(pipe, FdTarget::Fifo { .. }), "{pipe:?}");
        assert_eq!(of_process(me, read.as_raw_fd()), pipe);
        assert_eq!(
            of_process(me, write.as_raw_fd()),
            pipe,
            "one pipe, two ends"
        );
        let null = std::fs::File::open("/dev/null").unwrap();
        assert_eq!(
            of_process(me, null.as_raw_fd()),
            of_path(Path::new("/dev/null"))
        );
        assert!(matches!(
            of_path(Path::new("/dev/null")),
            FdTarget::Device { .. }
        ));
        let file = std::fs::File::open("Cargo.toml").unwrap();
        assert_eq!(of_process(me, file.as_raw_fd()), FdTarget::Other);
        let fd = file.as_raw_fd();
        drop(file);
        assert_eq!(of_process(me, fd), FdTarget::Closed);
    }
}
