//! Step 1: the namespaces and what is mounted in them, planned in the parent
//! ([`plan`]) and made in the child ([`enter`]), in this order:
//!
//! 1. `unshare` of a mount and an IPC namespace ([`Plan::flags`]; as root
//!    directly, otherwise inside a user namespace that maps only the
//!    caller's own user and group). The IPC namespace has its own SysV
//!    shared memory, message queues and semaphores and its own POSIX
//!    message queues: none of the outside's. **Another namespace (the
//!    network's) plugs in here: add its flag to `flags` in [`plan`], and
//!    a step of its own after the mounts in [`enter`].**
//! 2. Mounts stop propagating either way (`MS_PRIVATE`, recursive).
//! 3. Each writable root is cloned (`open_tree`, recursive) while it is
//!    still writable.
//! 4. The whole tree becomes read-only (`mount_setattr`, recursive): a
//!    change of mode, owner, times or extended attributes outside the
//!    roots fails with `EROFS`, which Landlock alone cannot refuse (it has
//!    no right for metadata, and root keeps `CAP_FOWNER`/`CAP_CHOWN`).
//! 5. Private `tmpfs` mounts, bounded ([`PRIVATE`]), over `/tmp`,
//!    `/var/tmp`, `/dev/shm` and `/run`: the daemons' sockets there (tmux's
//!    default server, ssh-agent's, the session bus) are simply absent, and
//!    the private `TMPDIR` is made in the new `/tmp`.
//! 6. The roots are put back at their paths (folders made for them first
//!    where they lie in a private mount, as the tests' workspaces in
//!    `/tmp` do), and the Unix sockets allowed by name that lie there.
//! 7. Each git folder is bound over itself (a mount point cannot be
//!    renamed: `.git` cannot be moved away and replaced). What stays
//!    read-only inside the roots (`.git`'s configuration and
//!    hooks, `readOnly`) is cloned, made read-only and mounted over itself;
//!    what stays writable inside those (a submodule's git folder) is put
//!    back over it.
//! 8. Every denied Unix socket (`denyUnixSockets`: the container daemons'
//!    by default) not allowed by name is covered by `/dev/null`, a second
//!    wall behind the supervisor (`supervisor.rs`), which decides on every
//!    other socket at each call, by its inode and mount.
//! 9. A `devpts` of its own over `/dev/pts` (`newinstance`; `/dev/ptmx`
//!    finds it by its path): the person's other terminals are not there.
//!    The session's own terminal, already open on 0, 1 and 2 and the
//!    controlling terminal, is bound over `/dev/console` so that `tty`
//!    still names a device. `/dev` itself is a small `tmpfs` of its own
//!    (made between steps 4 and 5, as bubblewrap's `--dev` and Docker do),
//!    holding only [`DEV_NODES`] bound from the host, `shm`, `pts`,
//!    `console` and the `ptmx`, `fd`, `stdin`, `stdout`, `stderr` links:
//!    the virtual consoles, serial lines and input devices, which root may
//!    open for reading (and so take the keys typed there), are not there.

use std::ffi::{CStr, CString, c_int};
use std::path::{Path, PathBuf};

use super::landlock::Grant;
use super::{cpath, errno};
use crate::core::error::{Error, Result};
use crate::core::sandbox::Request;

/// The private mounts: where, the `tmpfs` options (the size bound, class 8
/// of the sandbox's promises), and whether the program may write there.
pub(super) const PRIVATE: &[(&str, &str)] = &[
    ("/tmp", "size=1g,mode=1777"),
    ("/var/tmp", "size=1g,mode=1777"),
    ("/dev/shm", "size=1g,mode=1777"),
    ("/run", "size=64m,mode=755"),
];

/// The devices bound into the sandbox's own `/dev`: those that discard or
/// produce bytes, and `/dev/tty` (the controlling terminal, whichever it is).
const DEV_NODES: &[&CStr] = &[
    c"/dev/null",
    c"/dev/zero",
    c"/dev/full",
    c"/dev/random",
    c"/dev/urandom",
    c"/dev/tty",
];

/// The links of the sandbox's own `/dev`.
const DEV_LINKS: &[(&CStr, &CStr)] = &[
    (c"pts/ptmx", c"/dev/ptmx"),
    (c"/proc/self/fd", c"/dev/fd"),
    (c"/proc/self/fd/0", c"/dev/stdin"),
    (c"/proc/self/fd/1", c"/dev/stdout"),
    (c"/proc/self/fd/2", c"/dev/stderr"),
];

/// The most subtrees cloned at once (the child keeps their descriptors on
/// its stack).
const MAX_KEPT: usize = 64;

/// `OPEN_TREE_CLONE`, `AT_RECURSIVE`, `MOVE_MOUNT_F_EMPTY_PATH`,
/// `MOUNT_ATTR_RDONLY` (not in every libc).
const OPEN_TREE_CLONE: u32 = 1;
const AT_RECURSIVE: u32 = 0x8000;
const MOVE_MOUNT_F_EMPTY_PATH: u32 = 4;
const MOUNT_ATTR_RDONLY: u64 = 1;

/// `struct mount_attr`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// A subtree cloned before the tree goes read-only and put back after.
struct Keep {
    path: CString,
    /// Folders to make first, parents first (those inside a private mount);
    /// with `file`, the last is a file.
    make: Vec<CString>,
    file: bool,
    /// Put back read-only (what `/etc/resolv.conf` points to in `/run`).
    read_only: bool,
}

/// A path bound read-only over itself, with the paths inside it that stay
/// as they were.
struct ReadOnly {
    path: CString,
    except: Vec<CString>,
}

/// The namespaces and mounts of one sandbox.
pub(super) struct Plan {
    /// The namespaces to make.
    flags: c_int,
    /// Not root: the `uid_map` and `gid_map` lines of the user namespace.
    user_maps: Option<(CString, CString)>,
    keep: Vec<Keep>,
    private: Vec<(CString, CString)>,
    /// The private `TMPDIR` and the folders above it to make in `/tmp`.
    temp: Vec<CString>,
    temp_path: Option<PathBuf>,
    read_only: Vec<ReadOnly>,
    /// Bound over themselves before the read-only paths (a git folder): a
    /// mount point cannot be renamed or removed (`EBUSY`).
    pinned: Vec<CString>,
    covers: Vec<CString>,
    devpts: bool,
    /// The rules Landlock gets for what only the new mounts hold.
    rules: Vec<(CString, Grant)>,
}

impl Plan {
    /// A user namespace comes with it: the child must fork.
    pub(super) fn needs_own_memory(&self) -> bool {
        self.user_maps.is_some()
    }

    /// `path` is the private `TMPDIR`, made in the child's own `/tmp`.
    pub(super) fn makes(&self, path: &Path) -> bool {
        self.temp_path.as_deref() == Some(path)
    }

    /// The Landlock rules for the new mounts.
    pub(super) fn child_rules(&self) -> impl Iterator<Item = (&CStr, Grant)> {
        self.rules.iter().map(|(p, g)| (p.as_c_str(), *g))
    }
}

/// What stays open without the namespaces, for `session.sandbox.missing`.
const OPEN_WITHOUT: &str = "Unix sockets outside the writable roots stay reachable, \
     modes, owners, times and extended attributes outside them changeable, \
     SysV and POSIX IPC and other terminals shared with the outside, the private TMPDIR \
     unbounded, and .git's configuration and hooks writable";

pub(super) fn plan(req: &Request<'_>, missing: &mut Vec<String>) -> Result<Option<Plan>> {
    // SAFETY: geteuid, getuid and getgid have no preconditions.
    let (euid, uid, gid) = unsafe { (libc::geteuid(), libc::getuid(), libc::getgid()) };
    let root = euid == 0;
    let mut flags = libc::CLONE_NEWNS | libc::CLONE_NEWIPC;
    if req.policy.hosts.is_some() {
        // The network by host name: a namespace with no route out, bridged
        // to the proxy after the mounts (`net_proxy::linux`).
        flags |= libc::CLONE_NEWNET;
    }
    let user_maps = (!root).then(|| {
        flags |= libc::CLONE_NEWUSER;
        (
            CString::new(format!("{uid} {uid} 1")).expect("digits"),
            CString::new(format!("{gid} {gid} 1")).expect("digits"),
        )
    });
    if let Err(why) = available(flags, user_maps.as_ref()) {
        missing.push(format!("{why}: {OPEN_WITHOUT}"));
        return Ok(None);
    }

    let is_dir = |p: &str| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir());
    let private_dirs: Vec<&str> = PRIVATE
        .iter()
        .map(|(p, _)| *p)
        .filter(|p| is_dir(p))
        .collect();
    let private_of = |path: &Path| private_dirs.iter().find(|d| path.starts_with(d)).copied();
    // The folders from below `private` down to `path`, parents first.
    let chain = |private: &str, path: &Path| -> Result<Vec<CString>> {
        let mut dirs: Vec<&Path> = path
            .ancestors()
            .take_while(|a| *a != Path::new(private))
            .collect();
        dirs.reverse();
        dirs.into_iter().map(cpath).collect()
    };
    let in_roots = |path: &Path| req.writable.iter().any(|w| path.starts_with(w));

    let mut keep = Vec::new();
    let roots: Vec<&PathBuf> = req.writable.iter().filter(|w| *w != req.temp_dir).collect();
    for root in &roots {
        // A root inside another comes back with it.
        if roots.iter().any(|o| o != root && root.starts_with(o)) {
            continue;
        }
        keep.push(Keep {
            path: cpath(root)?,
            make: match private_of(root) {
                Some(d) => chain(d, root)?,
                None => Vec::new(),
            },
            file: false,
            read_only: false,
        });
    }
    for socket in req.allowed_sockets {
        if let Some(d) = private_of(socket)
            && !in_roots(socket)
        {
            keep.push(Keep {
                path: cpath(socket)?,
                make: chain(d, socket)?,
                file: true,
                read_only: false,
            });
        }
    }
    // The working directory stays where the program starts, read-only
    // when it is not a root (read-only mode, a Shell's `cd`).
    if let Some(d) = private_of(req.cwd)
        && !in_roots(req.cwd)
        && req.cwd != Path::new(d)
    {
        keep.push(Keep {
            path: cpath(req.cwd)?,
            make: chain(d, req.cwd)?,
            file: false,
            read_only: true,
        });
    }
    // Name resolution keeps working where /etc/resolv.conf points into /run
    // (systemd-resolved): that folder comes back read-only.
    if let Ok(resolv) = std::fs::canonicalize("/etc/resolv.conf")
        && let Some(dir) = resolv.parent()
        && let Some(d) = private_of(dir)
        && dir != Path::new(d)
    {
        keep.push(Keep {
            path: cpath(dir)?,
            make: chain(d, dir)?,
            file: false,
            read_only: true,
        });
    }
    // Parents first: a root inside the read-only working directory goes
    // over it, not under.
    keep.sort_by_key(|k| k.path.as_bytes().len());
    if keep.len() > MAX_KEPT {
        return Err(Error::invalid_arg(format!(
            "the sandbox keeps at most {MAX_KEPT} writable roots and allowed sockets, got {}",
            keep.len()
        )));
    }

    let (temp, temp_path) = match private_of(req.temp_dir) {
        Some(d) if d == "/tmp" => (chain(d, req.temp_dir)?, Some(req.temp_dir.to_owned())),
        _ => (Vec::new(), None),
    };
    if temp_path.is_none() {
        // A TMPDIR elsewhere is a root like the others.
        keep.push(Keep {
            path: cpath(req.temp_dir)?,
            make: Vec::new(),
            file: false,
            read_only: false,
        });
    }

    let mut read_only: Vec<&PathBuf> = req.read_only.iter().collect();
    read_only.sort_by_key(|p| p.as_os_str().len());
    let read_only = read_only
        .into_iter()
        .map(|p| {
            let except = req
                .read_write
                .iter()
                .filter(|e| e.starts_with(p) && *e != p)
                .map(|e| cpath(e))
                .collect::<Result<Vec<_>>>()?;
            if except.len() > MAX_KEPT {
                return Err(Error::invalid_arg(format!(
                    "the sandbox keeps at most {MAX_KEPT} folders writable inside {}",
                    p.display()
                )));
            }
            Ok(ReadOnly {
                path: cpath(p)?,
                except,
            })
        })
        .collect::<Result<Vec<_>>>()?;

    let pinned = req
        .read_write
        .iter()
        .filter(|p| !req.read_only.iter().any(|r| p.starts_with(r) && *p != r))
        .map(|p| cpath(p))
        .collect::<Result<Vec<_>>>()?;

    let devpts = is_dir("/dev/pts");
    let mut covers = Vec::new();
    // With a `/dev` of its own (where there is a `/dev/pts`), nothing of the
    // host's `/dev` is there to cover.
    let visible =
        |p: &Path| (private_of(p).is_none() || in_roots(p)) && !(devpts && p.starts_with("/dev"));
    for socket in req.denied_sockets {
        if visible(socket) && !covers.contains(socket) && !req.allowed_sockets.contains(socket) {
            covers.push(socket.clone());
        }
    }
    let covers = covers
        .iter()
        .map(|p| cpath(p))
        .collect::<Result<Vec<_>>>()?;

    let mut rules = Vec::new();
    for d in &private_dirs {
        if *d != "/run" {
            rules.push((cpath(Path::new(d))?, Grant::Writable));
        }
    }
    if devpts {
        rules.push((c"/dev/pts".to_owned(), Grant::Device));
        rules.push((c"/dev/console".to_owned(), Grant::Device));
    }
    let private = PRIVATE
        .iter()
        .filter(|(p, _)| private_dirs.contains(p))
        .map(|(p, o)| Ok((cpath(Path::new(p))?, CString::new(*o).expect("no NUL"))))
        .collect::<Result<Vec<_>>>()?;
    Ok(Some(Plan {
        flags,
        user_maps,
        keep,
        private,
        temp,
        temp_path,
        read_only,
        pinned,
        covers,
        devpts,
        rules,
    }))
}

/// Whether this system lets a child make the namespaces (`flags`): asked
/// once per process of a child that tries (a user namespace can be
/// switched off by `kernel.unprivileged_userns_clone=0`,
/// `user.max_user_namespaces=0` or an AppArmor rule, as on Ubuntu 24.04).
/// `PTYPILOT_TEST_NO_NAMESPACES=1` in this process's environment answers
/// no (for the tests of `ifUnavailable`; not an option).
fn available(flags: c_int, maps: Option<&(CString, CString)>) -> std::result::Result<(), String> {
    use std::sync::OnceLock;
    static ANSWER: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    if std::env::var_os("PTYPILOT_TEST_NO_NAMESPACES").is_some_and(|v| v == "1") {
        return Err(
            "namespaces are switched off for this test (PTYPILOT_TEST_NO_NAMESPACES=1)".to_owned(),
        );
    }
    ANSWER.get_or_init(|| probe(flags, maps)).clone()
}

fn probe(flags: c_int, maps: Option<&(CString, CString)>) -> std::result::Result<(), String> {
    // SAFETY: the child makes system calls on memory made before the fork
    // and exits; the parent waits for it.
    unsafe {
        let pid = libc::fork();
        if pid == 0 {
            let code = match unshare(flags, maps) {
                Ok(()) => 0,
                Err(e) => e & 0xff,
            };
            libc::_exit(code);
        }
        if pid < 0 {
            return Ok(()); // Unknown: the child's own failure will say.
        }
        let mut status = 0;
        while libc::waitpid(pid, &mut status, 0) < 0 {
            if errno() != libc::EINTR {
                return Ok(());
            }
        }
        let code = libc::WEXITSTATUS(status);
        if libc::WIFEXITED(status) && code == 0 {
            return Ok(());
        }
        let err = std::io::Error::from_raw_os_error(code);
        Err(if maps.is_some() {
            format!(
                "this system does not let an unprivileged user make a user namespace ({err}; \
                 kernel.unprivileged_userns_clone=0, user.max_user_namespaces=0 or an AppArmor \
                 rule such as Ubuntu's kernel.apparmor_restrict_unprivileged_userns)"
            )
        } else {
            format!("this system does not let root make a mount namespace ({err})")
        })
    }
}

/// `unshare(flags)`, the user namespace's maps, and no propagation.
///
/// # Safety
/// As [`super::apply_in_child`].
unsafe fn unshare(flags: c_int, maps: Option<&(CString, CString)>) -> std::result::Result<(), i32> {
    // SAFETY: raw system calls on C strings made before the fork.
    unsafe {
        if libc::unshare(flags) != 0 {
            return Err(errno());
        }
        if let Some((uid_map, gid_map)) = maps {
            write_file(c"/proc/self/setgroups", c"deny")?;
            write_file(c"/proc/self/uid_map", uid_map)?;
            write_file(c"/proc/self/gid_map", gid_map)?;
        }
        let none = std::ptr::null::<libc::c_char>();
        if libc::mount(
            none,
            c"/".as_ptr(),
            none,
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        ) != 0
        {
            return Err(errno());
        }
        Ok(())
    }
}

/// Makes the namespaces and mounts of `plan` (see the module's steps).
///
/// # Safety
/// As [`super::apply_in_child`].
pub(super) unsafe fn enter(plan: &Plan) -> std::result::Result<(), i32> {
    // SAFETY (the whole body): raw system calls on C strings made before
    // the fork, and on locals.
    unsafe {
        unshare(plan.flags, plan.user_maps.as_ref())?;
        let mut kept = [-1 as c_int; MAX_KEPT];
        for (i, k) in plan.keep.iter().enumerate() {
            kept[i] = clone_tree(&k.path, k.read_only)?;
        }
        set_read_only(libc::AT_FDCWD, c"/", 0)?;
        let none = std::ptr::null::<libc::c_char>();
        let console = if plan.devpts { own_dev()? } else { -1 };
        for (target, options) in &plan.private {
            mount_fs(c"tmpfs", target, libc::MS_NOSUID | libc::MS_NODEV, options)?;
        }
        for dir in &plan.temp {
            make_dir(dir)?;
        }
        if let Some(temp) = plan.temp.last() {
            // Whoever the program runs as (`runAs`) writes there.
            libc::chmod(temp.as_ptr(), 0o1777);
        }
        for (i, k) in plan.keep.iter().enumerate() {
            let (last, parents) = match k.make.split_last() {
                Some((last, parents)) => (Some(last), parents),
                None => (None, &[][..]),
            };
            for dir in parents {
                make_dir(dir)?;
            }
            if let Some(last) = last {
                if k.file {
                    make_file(last, 0o600)?;
                } else {
                    make_dir(last)?;
                }
            }
            put_back(kept[i], &k.path)?;
        }
        for path in &plan.pinned {
            put_back(clone_tree(path, false)?, path)?;
        }
        for ro in &plan.read_only {
            let mut inner = [-1 as c_int; MAX_KEPT];
            for (i, e) in ro.except.iter().enumerate() {
                inner[i] = clone_tree(e, false)?;
            }
            let fd = clone_tree(&ro.path, true)?;
            put_back(fd, &ro.path)?;
            for (i, e) in ro.except.iter().enumerate() {
                put_back(inner[i], e)?;
            }
        }
        for socket in &plan.covers {
            // A socket removed since the parent read the table (any program
            // that binds and unlinks one, as test suites and language
            // servers do) has nothing left to cover: not a failure.
            if libc::mount(
                c"/dev/null".as_ptr(),
                socket.as_ptr(),
                none,
                libc::MS_BIND,
                std::ptr::null(),
            ) != 0
                && errno() != libc::ENOENT
            {
                return Err(errno());
            }
        }
        if plan.devpts {
            if console >= 0 {
                put_back(console, c"/dev/console")?;
            }
            mount_fs(
                c"devpts",
                c"/dev/pts",
                libc::MS_NOSUID | libc::MS_NOEXEC,
                c"newinstance,ptmxmode=0666,mode=0620",
            )?;
        }
        Ok(())
    }
}

/// Makes `/dev` a `tmpfs` of its own holding [`DEV_NODES`] (bound from the
/// host's), empty `shm` and `pts` folders (mounted over later), an empty
/// `console` and [`DEV_LINKS`]. Returns a clone of the session's terminal
/// (taken by its path before the host's `/dev` is covered: a descriptor
/// opened before the `unshare` names a mount of the old namespace, which a
/// bind refuses), to go over `/dev/console`, or -1 when 0 is no terminal.
///
/// # Safety
/// As [`super::apply_in_child`].
unsafe fn own_dev() -> std::result::Result<c_int, i32> {
    // SAFETY (the whole body): raw system calls on C strings and locals.
    unsafe {
        let mut nodes = [-1 as c_int; DEV_NODES.len()];
        for (i, node) in DEV_NODES.iter().enumerate() {
            let fd = libc::syscall(
                libc::SYS_open_tree,
                libc::AT_FDCWD,
                node.as_ptr(),
                OPEN_TREE_CLONE | libc::O_CLOEXEC as u32,
            ) as c_int;
            // A device this system lacks stays absent.
            nodes[i] = fd;
        }
        let mut console = -1;
        let mut tty = [0u8; 256];
        let n = libc::readlink(
            c"/proc/self/fd/0".as_ptr(),
            tty.as_mut_ptr().cast(),
            tty.len() - 1,
        );
        if libc::isatty(0) == 1 && n > 0 && (n as usize) < tty.len() - 1 {
            console = libc::syscall(
                libc::SYS_open_tree,
                libc::AT_FDCWD,
                tty.as_ptr(),
                OPEN_TREE_CLONE | libc::O_CLOEXEC as u32,
            ) as c_int;
        }
        mount_fs(
            c"tmpfs",
            c"/dev",
            libc::MS_NOSUID | libc::MS_NOEXEC,
            c"size=64k,mode=755",
        )?;
        for (i, node) in DEV_NODES.iter().enumerate() {
            if nodes[i] >= 0 {
                make_file(node, 0o666)?;
                put_back(nodes[i], node)?;
            }
        }
        for dir in [c"/dev/shm", c"/dev/pts"] {
            make_dir(dir)?;
        }
        if console >= 0 {
            make_file(c"/dev/console", 0o666)?;
        }
        for (target, link) in DEV_LINKS {
            if libc::symlink(target.as_ptr(), link.as_ptr()) != 0 {
                return Err(errno());
            }
        }
        Ok(console)
    }
}

/// Mounts a new filesystem of type `fstype` (its own name as the source,
/// as `mount -t tmpfs tmpfs` does) at `target` with `options`.
///
/// # Safety
/// As [`super::apply_in_child`].
unsafe fn mount_fs(
    fstype: &CStr,
    target: &CStr,
    flags: libc::c_ulong,
    options: &CStr,
) -> std::result::Result<(), i32> {
    // SAFETY: mount(2) on C strings that outlive the call.
    let r = unsafe {
        libc::mount(
            fstype.as_ptr(),
            target.as_ptr(),
            fstype.as_ptr(),
            flags,
            options.as_ptr().cast(),
        )
    };
    if r != 0 { Err(errno()) } else { Ok(()) }
}

/// A detached recursive clone of the mounts at `path` (made read-only with
/// `read_only`); its descriptor.
///
/// # Safety
/// As [`super::apply_in_child`].
unsafe fn clone_tree(path: &CStr, read_only: bool) -> std::result::Result<c_int, i32> {
    // SAFETY: the system calls on a C string made before the fork.
    unsafe {
        let fd = libc::syscall(
            libc::SYS_open_tree,
            libc::AT_FDCWD,
            path.as_ptr(),
            OPEN_TREE_CLONE | libc::O_CLOEXEC as u32 | AT_RECURSIVE,
        ) as c_int;
        if fd < 0 {
            return Err(errno());
        }
        if read_only {
            set_read_only(fd, c"", libc::AT_EMPTY_PATH as u32)?;
        }
        Ok(fd)
    }
}

/// `mount_setattr(MOUNT_ATTR_RDONLY)` on the mounts at `dirfd`/`path`, and
/// every one below.
///
/// # Safety
/// As [`super::apply_in_child`].
unsafe fn set_read_only(dirfd: c_int, path: &CStr, flags: u32) -> std::result::Result<(), i32> {
    let attr = MountAttr {
        attr_set: MOUNT_ATTR_RDONLY,
        attr_clr: 0,
        propagation: 0,
        userns_fd: 0,
    };
    // SAFETY: the kernel reads the local struct.
    if unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            dirfd,
            path.as_ptr(),
            flags | AT_RECURSIVE,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    } != 0
    {
        return Err(errno());
    }
    Ok(())
}

/// Mounts the detached tree `fd` at `path` and closes it.
///
/// # Safety
/// As [`super::apply_in_child`].
unsafe fn put_back(fd: c_int, path: &CStr) -> std::result::Result<(), i32> {
    // SAFETY: the system calls on a descriptor and a C string.
    unsafe {
        let r = libc::syscall(
            libc::SYS_move_mount,
            fd,
            c"".as_ptr(),
            libc::AT_FDCWD,
            path.as_ptr(),
            MOVE_MOUNT_F_EMPTY_PATH,
        );
        let err = errno();
        libc::close(fd);
        if r != 0 {
            return Err(err);
        }
        Ok(())
    }
}

/// `mkdir(path, 0755)`; one that exists is fine.
///
/// # Safety
/// As [`super::apply_in_child`].
unsafe fn make_dir(path: &CStr) -> std::result::Result<(), i32> {
    // SAFETY: mkdir on a C string.
    if unsafe { libc::mkdir(path.as_ptr(), 0o755) } != 0 && errno() != libc::EEXIST {
        return Err(errno());
    }
    Ok(())
}

/// Creates the file at `path` (empty, with `mode`) unless it exists: a
/// mount point for a file.
///
/// # Safety
/// As [`super::apply_in_child`].
unsafe fn make_file(path: &CStr, mode: libc::mode_t) -> std::result::Result<(), i32> {
    // SAFETY: open and close on a C string and the descriptor just made.
    unsafe {
        let fd = libc::open(
            path.as_ptr(),
            libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC,
            mode,
        );
        if fd < 0 {
            return Err(errno());
        }
        libc::close(fd);
    }
    Ok(())
}

/// Writes `text` to the file at `path` (the user namespace's maps).
///
/// # Safety
/// As [`super::apply_in_child`].
unsafe fn write_file(path: &CStr, text: &CStr) -> std::result::Result<(), i32> {
    // SAFETY: open, write and close on a C string and a local descriptor.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(errno());
        }
        let bytes = text.to_bytes();
        let n = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        let err = errno();
        libc::close(fd);
        if n != bytes.len() as isize {
            return Err(err);
        }
        Ok(())
    }
}
