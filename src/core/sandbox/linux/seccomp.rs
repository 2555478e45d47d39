//! Step 5: the seccomp filters, compiled in the parent once per network
//! setting. Refused (`EPERM` unless said otherwise):
//!
//! - sockets other than `AF_UNIX` (network off);
//! - the ioctls that reach past the program's own session: `TIOCSTI` and
//!   `TIOCLINUX` (typing into a terminal), `TIOCSETD` (a terminal's line
//!   discipline: changing it hung up the person's shell);
//! - new namespaces (`unshare`, `setns`, `clone` with a namespace flag;
//!   `clone3`, whose flags a filter cannot read, answers `ENOSYS` so libc
//!   falls back to `clone`), mounts, module and kexec loading, `bpf`, raw
//!   port I/O, `open_by_handle_at`, and io_uring (its requests do not pass
//!   through seccomp);
//! - the kernel's keyrings (`keyctl`, `add_key`, `request_key`), shared
//!   with every process of the user, as Docker's default profile does;
//! - changing another process without a signal: `prlimit64` with new
//!   limits, `setpriority`, `sched_setaffinity`, `sched_setscheduler`,
//!   `sched_setparam`, `sched_setattr`, `ioprio_set`, `migrate_pages` and
//!   `move_pages` name their target by pid, and are refused unless it is 0
//!   (the caller itself); `setpriority` and `ioprio_set` for a whole user,
//!   and `process_madvise`, always. The program changes its own limits,
//!   priority and affinity (and those of programs it starts, before they
//!   run: `nice`, `taskset`, `ionice`, `chrt`, `prlimit` with a command);
//!   not another's, its own children's included;
//! - the x32 system-call ABI, whole (its numbers would miss every rule).

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

use super::errno;
use crate::core::error::{Error, Result};

/// `TIOCLINUX` (not in every libc).
const TIOCLINUX: u64 = 0x541C;

/// `TIOCSETD`.
const TIOCSETD: u64 = 0x5423;

/// `PRIO_USER` (`setpriority`) and `IOPRIO_WHO_USER` (`ioprio_set`).
const PRIO_USER: u64 = 2;
const IOPRIO_WHO_USER: u64 = 3;

fn target_arch() -> seccompiler::TargetArch {
    #[cfg(target_arch = "x86_64")]
    return seccompiler::TargetArch::x86_64;
    #[cfg(target_arch = "aarch64")]
    return seccompiler::TargetArch::aarch64;
    #[cfg(target_arch = "riscv64")]
    return seccompiler::TargetArch::riscv64;
}

/// [`build_filters`], compiled once per network setting.
pub(super) fn compiled_filters(network: bool) -> Result<&'static [BpfProgram]> {
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
            SeccompRule::new(vec![cond(1, SeccompCmpOp::Eq, TIOCSETD)?])?,
        ],
    );
    // Another process, named by its pid (argument 0 unless said).
    let other = |arg| -> seccompiler::Result<SeccompRule> {
        Ok(SeccompRule::new(vec![cond(arg, SeccompCmpOp::Ne, 0)?])?)
    };
    for nr in [
        libc::SYS_sched_setaffinity,
        libc::SYS_sched_setscheduler,
        libc::SYS_sched_setparam,
        libc::SYS_sched_setattr,
        libc::SYS_migrate_pages,
        libc::SYS_move_pages,
    ] {
        rules.insert(nr, vec![other(0)?]);
    }
    // prlimit64(pid, resource, new, old): reading another's limits is not
    // changing them.
    rules.insert(
        libc::SYS_prlimit64,
        vec![SeccompRule::new(vec![
            cond(0, SeccompCmpOp::Ne, 0)?,
            qcond(2, SeccompCmpOp::Ne, 0)?,
        ])?],
    );
    // setpriority(which, who, prio) and ioprio_set(which, who, prio).
    rules.insert(
        libc::SYS_setpriority,
        vec![
            other(1)?,
            SeccompRule::new(vec![cond(0, SeccompCmpOp::Eq, PRIO_USER)?])?,
        ],
    );
    rules.insert(
        libc::SYS_ioprio_set,
        vec![
            other(1)?,
            SeccompRule::new(vec![cond(0, SeccompCmpOp::Eq, IOPRIO_WHO_USER)?])?,
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
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_process_madvise,
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

/// Installs `filters` in order.
///
/// # Safety
/// As [`super::apply_in_child`].
pub(super) unsafe fn install(filters: &[BpfProgram]) -> std::result::Result<(), i32> {
    for filter in filters {
        let prog = libc::sock_fprog {
            len: filter.len() as u16,
            filter: filter.as_ptr() as *mut libc::sock_filter,
        };
        // SAFETY: the program was compiled before the fork and outlives
        // the call (the kernel copies it).
        if unsafe {
            libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER,
                0u32,
                &prog as *const libc::sock_fprog,
            )
        } != 0
        {
            return Err(errno());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
