//! The sandbox on Linux: Landlock, seccomp, a mount namespace where needed,
//! no-new-privs and the capabilities that reach around the rules dropped,
//! all set in the child between `fork` and `execve`.
//!
//! Made in the parent ([`prepare`]): the Landlock ruleset (a descriptor,
//! close-on-exec), the seccomp programs (compiled BPF), the paths of the
//! read-only and denied mounts as C strings, and the user-namespace maps.
//! Done in the child ([`apply_in_child`]), system calls only, in order:
//!
//! 1. a mount namespace, when some path inside a writable root stays
//!    read-only (`.git`) or a Unix socket is denied: as root `unshare
//!    (CLONE_NEWNS)`; otherwise a user namespace with it that maps only the
//!    caller's own user and group. Mounts stop propagating back (`MS_SLAVE`),
//!    each read-only path is bound onto itself and remounted read-only (its
//!    other mount flags kept, which a user namespace requires), and each
//!    denied socket is covered by `/dev/null` (a `connect` to it is refused).
//!    Landlock forbids mounting once applied, so this comes first;
//! 2. `PR_SET_NO_NEW_PRIVS`: a setuid or file-capability program gains
//!    nothing, and the next two steps need it;
//! 3. the capabilities that reach around the rules leave the bounding,
//!    ambient, inheritable, permitted and effective sets ([`DROPPED_CAPS`]):
//!    as root the program keeps owning files but cannot mount, load modules,
//!    do raw I/O, trace, or open files by handle;
//! 4. Landlock (`landlock_restrict_self`): reads and runs anywhere, writes
//!    only beneath the writable roots, the terminal and `/dev/null`-like
//!    devices; with the network off, no TCP bind or connect; no signal to a
//!    process outside, no connection to an abstract Unix socket made outside
//!    (scopes, ABI 6), and no ptrace of a process outside (every ABI);
//! 5. the seccomp filters: sockets other than `AF_UNIX` (network off),
//!    `TIOCSTI` and `TIOCLINUX`, new namespaces (`unshare`, `setns`, `clone`
//!    with a namespace flag; `clone3`, whose flags a filter cannot read,
//!    answers `ENOSYS` so libc falls back to `clone`), mounts, module and
//!    kexec loading, `bpf`, raw port I/O, `open_by_handle_at`, and io_uring
//!    (its requests do not pass through seccomp); the x32 system-call ABI
//!    is refused whole (its numbers would miss every rule).
//!
//! Landlock ABI 6 (Linux 6.12) is the least that closes every hole listed
//! above: ABI 3 brings `truncate`, ABI 6 the scopes. An older kernel is
//! `ERR_SANDBOX_UNAVAILABLE` naming what it lacks, or with `ifUnavailable:
//! 'warn'` the rules it has (best effort) and the list of what is missing.

use std::ffi::CString;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreatedAttr, Scope,
};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

use super::Request;
use crate::core::error::{Error, Result};

/// The Landlock ABI that closes every hole the sandbox promises to.
const NEEDED_ABI: i32 = 6;

/// `LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON` (ABI 7): denials after the
/// `execve` are logged to the kernel's audit log, where an administrator
/// with audit on sees them.
const LOG_NEW_EXEC_ON: u32 = 1 << 1;

/// `TIOCLINUX` (not in every libc).
const TIOCLINUX: u64 = 0x541C;

/// The capabilities a sandboxed root loses, by number (`capability.h`):
/// `DAC_READ_SEARCH` (2, `open_by_handle_at`), `LINUX_IMMUTABLE` (9),
/// `NET_ADMIN` (12), `NET_RAW` (13), `IPC_OWNER` (15), `SYS_MODULE` (16),
/// `SYS_RAWIO` (17), `SYS_CHROOT` (18), `SYS_PTRACE` (19), `SYS_PACCT` (20),
/// `SYS_ADMIN` (21), `SYS_BOOT` (22), `SYS_TIME` (25), `SYS_TTY_CONFIG` (26),
/// `MKNOD` (27), `AUDIT_WRITE` (29), `AUDIT_CONTROL` (30), `SETFCAP` (31),
/// `MAC_OVERRIDE` (32), `MAC_ADMIN` (33), `SYSLOG` (34), `WAKE_ALARM` (35),
/// `BLOCK_SUSPEND` (36), `AUDIT_READ` (37), `PERFMON` (38), `BPF` (39),
/// `CHECKPOINT_RESTORE` (40), and `SETPCAP` (8), dropped last from the
/// bounding set since dropping needs it. Kept: owning and reading files
/// (`CHOWN`, `DAC_OVERRIDE`, `FOWNER`, `FSETID`), `KILL` (scoped by
/// Landlock), `SETUID`/`SETGID`, `NET_BIND_SERVICE`, `SYS_NICE`,
/// `SYS_RESOURCE`, `IPC_LOCK`, `LEASE`, `NET_BROADCAST`: none of them
/// reaches past Landlock.
pub(crate) const DROPPED_CAPS: &[u32] = &[
    2, 9, 12, 13, 15, 16, 17, 18, 19, 20, 21, 22, 25, 26, 27, 29, 30, 31, 32, 33, 34, 35, 36, 37,
    38, 39, 40, 8,
];

/// A mount the child makes in its own mount namespace.
struct Mount {
    /// The path mounted over.
    target: CString,
    /// Read-only bind of the path onto itself (with these extra flags kept
    /// from its current mount), or `/dev/null` over a socket.
    kind: MountKind,
}

enum MountKind {
    ReadOnly { keep: libc::c_ulong },
    Cover,
}

/// The sandbox, ready for the child.
pub(super) struct Prepared {
    /// The Landlock ruleset (close-on-exec), `None` where Landlock is
    /// missing (with `ifUnavailable: 'warn'`).
    ruleset: Option<OwnedFd>,
    restrict_flags: u32,
    /// Seccomp programs, installed in order.
    filters: &'static [BpfProgram],
    mounts: Vec<Mount>,
    /// Not root: the mount namespace comes with a user namespace, and these
    /// are the `uid_map` and `gid_map` lines.
    user_ns: Option<(CString, CString)>,
}

/// The Landlock ABI of this kernel (0: none).
pub(crate) fn landlock_abi() -> i32 {
    // SAFETY: LANDLOCK_CREATE_RULESET_VERSION with a NULL attribute only
    // asks for the version.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32,
        )
    };
    if v < 0 { 0 } else { v as i32 }
}

pub(super) fn prepare(req: &Request<'_>, missing: &mut Vec<String>) -> Result<Prepared> {
    let abi_number = landlock_abi();
    if abi_number < NEEDED_ABI {
        missing.push(if abi_number == 0 {
            "this kernel has no Landlock (Linux 5.13+ with landlock in the lsm= list): no file-system rules".to_owned()
        } else {
            format!(
                "Landlock ABI {NEEDED_ABI} (Linux 6.12) is needed, this kernel has ABI {abi_number}: {}",
                lacking_features(abi_number)
            )
        });
    }
    let ruleset = if abi_number > 0 {
        Some(build_ruleset(req, ABI::from(abi_number.min(7)))?)
    } else {
        None
    };
    let filters = compiled_filters(req.policy.network)?;
    let mut mounts = Vec::new();
    for path in req.read_only {
        mounts.push(Mount {
            target: cpath(path)?,
            kind: MountKind::ReadOnly {
                keep: locked_flags(path),
            },
        });
    }
    for path in req.denied_sockets {
        mounts.push(Mount {
            target: cpath(path)?,
            kind: MountKind::Cover,
        });
    }
    // SAFETY: geteuid, getuid and getgid have no preconditions.
    let (euid, uid, gid) = unsafe { (libc::geteuid(), libc::getuid(), libc::getgid()) };
    let user_ns = (!mounts.is_empty() && euid != 0).then(|| {
        (
            CString::new(format!("{uid} {uid} 1")).expect("digits"),
            CString::new(format!("{gid} {gid} 1")).expect("digits"),
        )
    });
    Ok(Prepared {
        ruleset,
        restrict_flags: if abi_number >= 7 { LOG_NEW_EXEC_ON } else { 0 },
        filters,
        mounts,
        user_ns,
    })
}

/// What a kernel of Landlock ABI `abi` (1 to 5) cannot enforce.
fn lacking_features(abi: i32) -> String {
    let mut lacking = Vec::new();
    if abi < 2 {
        lacking.push("renames and links across folders (ABI 2)");
    }
    if abi < 3 {
        lacking.push("truncate outside the writable roots (ABI 3)");
    }
    if abi < 4 {
        lacking.push("TCP bind and connect rules (ABI 4)");
    }
    lacking.push("signals to processes outside and abstract Unix sockets made outside (ABI 6)");
    lacking.join(", ")
}

fn build_ruleset(req: &Request<'_>, abi: ABI) -> Result<OwnedFd> {
    let fail = |e: &dyn std::fmt::Display| {
        Error::io(
            "build the sandbox's Landlock rules",
            &std::io::Error::other(e.to_string()),
        )
    };
    // Device ioctls stay unrestricted: programs set their terminal's modes
    // through a reopened `/dev/tty`; the two ioctls that type into a
    // terminal are refused by seccomp instead.
    let handled = AccessFs::from_all(abi) & !AccessFs::IoctlDev;
    let read = AccessFs::from_read(abi);
    let device = (AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate) & handled;
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(handled)
        .map_err(|e| fail(&e))?;
    if !req.policy.network {
        ruleset = ruleset
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
            .map_err(|e| fail(&e))?;
    }
    ruleset = ruleset
        .scope(Scope::AbstractUnixSocket | Scope::Signal)
        .map_err(|e| fail(&e))?;
    let mut created = ruleset.create().map_err(|e| fail(&e))?;
    let rule = |path: &Path, access| -> Result<PathBeneath<PathFd>> {
        let fd = PathFd::new(path).map_err(|e| fail(&e))?;
        Ok(PathBeneath::new(fd, access))
    };
    created = created
        .add_rule(rule(Path::new("/"), read)?)
        .map_err(|e| fail(&e))?;
    for path in req.writable {
        created = created
            .add_rule(rule(path, handled)?)
            .map_err(|e| fail(&e))?;
    }
    // The terminal (its own and any a program opens), and the devices
    // that discard or produce bytes; never `/dev/shm`.
    for dev in [
        "/dev/null",
        "/dev/zero",
        "/dev/full",
        "/dev/random",
        "/dev/urandom",
        "/dev/tty",
        "/dev/ptmx",
        "/dev/pts",
    ] {
        if Path::new(dev).exists() {
            created = created
                .add_rule(rule(Path::new(dev), device)?)
                .map_err(|e| fail(&e))?;
        }
    }
    let fd: Option<OwnedFd> = created.into();
    fd.ok_or_else(|| fail(&"the kernel gave no ruleset"))
}

/// The mount flags a read-only remount must keep (a user namespace may
/// not clear them): nosuid, nodev, noexec, noatime and friends.
fn locked_flags(path: &Path) -> libc::c_ulong {
    let Ok(c) = cpath(path) else { return 0 };
    let mut st = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: statvfs fills in the struct we own from a NUL-terminated path.
    if unsafe { libc::statvfs(c.as_ptr(), st.as_mut_ptr()) } != 0 {
        return 0;
    }
    // SAFETY: filled in by the successful call.
    let f = unsafe { st.assume_init() }.f_flag;
    let mut keep = 0;
    for (st_flag, ms_flag) in [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ] {
        if f & st_flag != 0 {
            keep |= ms_flag;
        }
    }
    keep
}

fn cpath(path: &Path) -> Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| {
        Error::invalid_arg(format!(
            "sandbox paths must not contain NUL characters, got {}",
            path.display()
        ))
    })
}

fn target_arch() -> seccompiler::TargetArch {
    #[cfg(target_arch = "x86_64")]
    return seccompiler::TargetArch::x86_64;
    #[cfg(target_arch = "aarch64")]
    return seccompiler::TargetArch::aarch64;
    #[cfg(target_arch = "riscv64")]
    return seccompiler::TargetArch::riscv64;
}

/// [`build_filters`], compiled once per network setting.
fn compiled_filters(network: bool) -> Result<&'static [BpfProgram]> {
    use std::sync::OnceLock;
    static ON: OnceLock<std::result::Result<Vec<BpfProgram>, String>> = OnceLock::new();
    static OFF: OnceLock<std::result::Result<Vec<BpfProgram>, String>> = OnceLock::new();
    let cell = if network { &ON } else { &OFF };
    match cell.get_or_init(|| build_filters(network).map_err(|e| e.to_string())) {
        Ok(filters) => Ok(filters),
        Err(e) => Err(Error::io(
            "compile the sandbox's seccomp filter",
            &std::io::Error::other(e.clone()),
        )),
    }
}

/// The seccomp programs: the refusals (`EPERM`), `clone3` (`ENOSYS`), and
/// on x86-64 the x32 ABI (`EPERM`).
fn build_filters(network: bool) -> seccompiler::Result<Vec<BpfProgram>> {
    let cond = |arg, op, value| SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value);
    let qcond = |arg, op, value| SeccompCondition::new(arg, SeccompCmpArgLen::Qword, op, value);
    let mut rules: std::collections::BTreeMap<i64, Vec<SeccompRule>> = Default::default();
    let always = |rules: &mut std::collections::BTreeMap<i64, Vec<SeccompRule>>,
                  nr: libc::c_long| {
        rules.insert(nr, Vec::new());
    };
    rules.insert(
        libc::SYS_ioctl,
        vec![
            SeccompRule::new(vec![cond(1, SeccompCmpOp::Eq, libc::TIOCSTI)?])?,
            SeccompRule::new(vec![cond(1, SeccompCmpOp::Eq, TIOCLINUX)?])?,
        ],
    );
    let ns_flags = [
        libc::CLONE_NEWUSER,
        libc::CLONE_NEWNS,
        libc::CLONE_NEWNET,
        libc::CLONE_NEWPID,
        libc::CLONE_NEWUTS,
        libc::CLONE_NEWIPC,
        libc::CLONE_NEWCGROUP,
    ];
    let mut clone_rules = Vec::new();
    for flag in ns_flags {
        let flag = flag as u64;
        clone_rules.push(SeccompRule::new(vec![qcond(
            0,
            SeccompCmpOp::MaskedEq(flag),
            flag,
        )?])?);
    }
    rules.insert(libc::SYS_clone, clone_rules);
    for nr in [
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_move_mount,
        libc::SYS_open_tree,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_mount_setattr,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_kexec_load,
        libc::SYS_kexec_file_load,
        libc::SYS_bpf,
        libc::SYS_open_by_handle_at,
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
    ] {
        always(&mut rules, nr);
    }
    #[cfg(target_arch = "x86_64")]
    for nr in [libc::SYS_iopl, libc::SYS_ioperm] {
        always(&mut rules, nr);
    }
    if !network {
        let not_unix = || -> seccompiler::Result<Vec<SeccompRule>> {
            Ok(vec![SeccompRule::new(vec![cond(
                0,
                SeccompCmpOp::Ne,
                libc::AF_UNIX as u64,
            )?])?])
        };
        rules.insert(libc::SYS_socket, not_unix()?);
        rules.insert(libc::SYS_socketpair, not_unix()?);
    }
    let eperm = SeccompAction::Errno(libc::EPERM as u32);
    let refusals: BpfProgram =
        SeccompFilter::new(rules, SeccompAction::Allow, eperm.clone(), target_arch())?
            .try_into()?;
    let mut clone3 = std::collections::BTreeMap::new();
    clone3.insert(libc::SYS_clone3, Vec::new());
    let clone3: BpfProgram = SeccompFilter::new(
        clone3,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        target_arch(),
    )?
    .try_into()?;
    #[allow(unused_mut)]
    let mut filters = vec![refusals, clone3];
    #[cfg(target_arch = "x86_64")]
    filters.push(x32_filter());
    Ok(filters)
}

/// Refuses every system call made through the x32 ABI (numbers with bit
/// 30 set, same audit architecture as x86-64), which would otherwise slip
/// past rules written for the x86-64 numbers.
#[cfg(target_arch = "x86_64")]
fn x32_filter() -> BpfProgram {
    use seccompiler::sock_filter;
    const LD_W_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const JSET_K: u16 = 0x45; // BPF_JMP | BPF_JSET | BPF_K
    const RET_K: u16 = 0x06; // BPF_RET | BPF_K
    const SECCOMP_RET_ALLOW: u32 = 0x7fff_0000;
    const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;
    let stmt = |code, k| sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    };
    vec![
        // seccomp_data.nr is at offset 0.
        stmt(LD_W_ABS, 0),
        sock_filter {
            code: JSET_K,
            jt: 0,
            jf: 1,
            k: 0x4000_0000,
        },
        stmt(RET_K, SECCOMP_RET_ERRNO | libc::EPERM as u32),
        stmt(RET_K, SECCOMP_RET_ALLOW),
    ]
}

/// A user namespace cannot be made by a child that shares its parent's
/// memory.
pub(super) fn needs_own_memory(p: &Prepared) -> bool {
    p.user_ns.is_some()
}

/// The macOS wrapper has no Linux counterpart: the child applies it.
pub(super) fn wrap_argv(
    _: &Prepared,
    _: &Path,
    _: &[std::ffi::OsString],
) -> Option<(PathBuf, Vec<std::ffi::OsString>)> {
    None
}

/// This thread's errno.
fn errno() -> i32 {
    // SAFETY: glibc's per-thread errno location.
    unsafe { *libc::__errno_location() }
}

/// Applies `p` to the calling process; the errno of the failed step.
///
/// # Safety
/// In the child of a `fork`, before `execve`: system calls only, on memory
/// made before the fork.
pub(super) unsafe fn apply_in_child(p: &Prepared) -> std::result::Result<(), i32> {
    // SAFETY (the whole body): raw system calls on C strings, structs and
    // programs made before the fork, and on locals.
    unsafe {
        let root = libc::geteuid() == 0;
        if !p.mounts.is_empty() {
            enter_mount_namespace(p)?;
        }
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(errno());
        }
        drop_capabilities(root || p.user_ns.is_some())?;
        if let Some(fd) = &p.ruleset {
            let fd: RawFd = fd.as_raw_fd();
            if libc::syscall(libc::SYS_landlock_restrict_self, fd, p.restrict_flags) != 0 {
                return Err(errno());
            }
            libc::close(fd);
        }
        for filter in p.filters {
            let prog = libc::sock_fprog {
                len: filter.len() as u16,
                filter: filter.as_ptr() as *mut libc::sock_filter,
            };
            if libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER,
                0u32,
                &prog as *const libc::sock_fprog,
            ) != 0
            {
                return Err(errno());
            }
        }
        Ok(())
    }
}

/// Step 1: the mount namespace and its mounts.
///
/// # Safety
/// As [`apply_in_child`].
unsafe fn enter_mount_namespace(p: &Prepared) -> std::result::Result<(), i32> {
    // SAFETY: raw system calls on C strings made before the fork.
    unsafe {
        match &p.user_ns {
            None => {
                if libc::unshare(libc::CLONE_NEWNS) != 0 {
                    return Err(errno());
                }
            }
            Some((uid_map, gid_map)) => {
                if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) != 0 {
                    return Err(errno());
                }
                write_file(c"/proc/self/setgroups", c"deny")?;
                write_file(c"/proc/self/uid_map", uid_map)?;
                write_file(c"/proc/self/gid_map", gid_map)?;
            }
        }
        let none = std::ptr::null::<libc::c_char>();
        if libc::mount(
            none,
            c"/".as_ptr(),
            none,
            libc::MS_REC | libc::MS_SLAVE,
            std::ptr::null(),
        ) != 0
        {
            return Err(errno());
        }
        for m in &p.mounts {
            match m.kind {
                MountKind::ReadOnly { keep } => {
                    if libc::mount(
                        m.target.as_ptr(),
                        m.target.as_ptr(),
                        none,
                        libc::MS_BIND | libc::MS_REC,
                        std::ptr::null(),
                    ) != 0
                        || libc::mount(
                            none,
                            m.target.as_ptr(),
                            none,
                            libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | keep,
                            std::ptr::null(),
                        ) != 0
                    {
                        return Err(errno());
                    }
                }
                MountKind::Cover => {
                    if libc::mount(
                        c"/dev/null".as_ptr(),
                        m.target.as_ptr(),
                        none,
                        libc::MS_BIND,
                        std::ptr::null(),
                    ) != 0
                    {
                        return Err(errno());
                    }
                }
            }
        }
        Ok(())
    }
}

/// Writes `text` to the file at `path` (the user namespace's maps).
///
/// # Safety
/// As [`apply_in_child`].
unsafe fn write_file(path: &std::ffi::CStr, text: &std::ffi::CStr) -> std::result::Result<(), i32> {
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

/// Step 3: [`DROPPED_CAPS`] out of every set. `privileged`: the process
/// holds capabilities (root, or the owner of a new user namespace), so a
/// failure is an error; otherwise it has none to lose and no-new-privs
/// keeps it so.
///
/// # Safety
/// As [`apply_in_child`].
unsafe fn drop_capabilities(privileged: bool) -> std::result::Result<(), i32> {
    #[repr(C)]
    struct Header {
        version: u32,
        pid: i32,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    // SAFETY: prctl, capget and capset on locals.
    unsafe {
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
        for &cap in DROPPED_CAPS {
            // EINVAL: a capability this kernel does not know; nothing to drop.
            if libc::prctl(libc::PR_CAPBSET_DROP, cap as libc::c_ulong, 0, 0, 0) != 0
                && errno() != libc::EINVAL
                && privileged
            {
                return Err(errno());
            }
        }
        let mut header = Header {
            version: 0x2008_0522, // _LINUX_CAPABILITY_VERSION_3
            pid: 0,
        };
        let mut data = [Data {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        }; 2];
        if libc::syscall(libc::SYS_capget, &mut header, data.as_mut_ptr()) != 0 {
            return Err(errno());
        }
        let mut mask = [0u32; 2];
        for &cap in DROPPED_CAPS {
            mask[(cap / 32) as usize] |= 1 << (cap % 32);
        }
        for (d, m) in data.iter_mut().zip(mask) {
            d.effective &= !m;
            d.permitted &= !m;
            d.inheritable &= !m;
        }
        if libc::syscall(libc::SYS_capset, &mut header, data.as_ptr()) != 0 && privileged {
            return Err(errno());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_kernel_has_the_landlock_the_sandbox_needs() {
        // The machine this project is built on: Linux 6.18, ABI 7.
        assert!(landlock_abi() >= NEEDED_ABI, "ABI {}", landlock_abi());
    }

    #[test]
    fn filters_compile_for_both_network_settings() {
        for network in [true, false] {
            let filters = build_filters(network).unwrap();
            assert!(filters.len() >= 2);
            assert!(filters.iter().all(|f| !f.is_empty() && f.len() < 4096));
        }
        let off = build_filters(false).unwrap()[0].len();
        let on = build_filters(true).unwrap()[0].len();
        assert!(off > on, "network off adds the socket rules: {off} vs {on}");
    }

    #[test]
    fn older_abis_name_what_they_lack() {
        assert!(lacking_features(3).contains("TCP"));
        assert!(!lacking_features(3).contains("truncate"));
        assert!(lacking_features(2).contains("truncate"));
        assert!(lacking_features(5).contains("ABI 6"));
    }
}
