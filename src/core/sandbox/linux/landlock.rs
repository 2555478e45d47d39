//! Step 4: Landlock. The ruleset is made in the parent (reads anywhere,
//! writes beneath the writable roots and a few devices, TCP off with the
//! network off, the signal and abstract-socket scopes); the child adds the
//! rules for what only exists in its own mounts ([`add_child_rules`]) and
//! then restricts itself ([`restrict`]).

use std::ffi::CStr;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::Path;

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreatedAttr, Scope,
};

use super::{errno, namespaces};
use crate::core::error::{Error, Result};
use crate::core::sandbox::Request;

/// The Landlock ABI that closes every hole the sandbox promises to.
pub(super) const NEEDED_ABI: i32 = 6;

/// `LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON` (ABI 7): denials after the
/// `execve` are logged to the kernel's audit log, where an administrator
/// with audit on sees them.
const LOG_NEW_EXEC_ON: u32 = 1 << 1;

/// `LANDLOCK_RULE_PATH_BENEATH`.
const RULE_PATH_BENEATH: u32 = 1;

/// The Landlock part of a prepared sandbox.
pub(super) struct Prepared {
    /// The ruleset (close-on-exec), `None` where Landlock is missing (with
    /// `ifUnavailable: 'warn'`).
    ruleset: Option<OwnedFd>,
    restrict_flags: u32,
    /// The access bits of a writable root and of a device, for the rules
    /// the child adds.
    writable_bits: u64,
    device_bits: u64,
}

/// What a rule the child adds grants.
#[derive(Clone, Copy)]
pub(super) enum Grant {
    /// Everything (a private temporary folder).
    Writable,
    /// Reading and writing a device (the terminal).
    Device,
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

pub(super) fn prepare(
    req: &Request<'_>,
    plan: Option<&namespaces::Plan>,
    missing: &mut Vec<String>,
) -> Result<Prepared> {
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
    let abi = ABI::from(abi_number.clamp(1, 7));
    let (handled, device) = access(abi);
    let ruleset = if abi_number > 0 {
        Some(build_ruleset(req, plan, abi)?)
    } else {
        None
    };
    Ok(Prepared {
        ruleset,
        restrict_flags: if abi_number >= 7 { LOG_NEW_EXEC_ON } else { 0 },
        writable_bits: handled.bits(),
        device_bits: device.bits(),
    })
}

/// What a kernel of Landlock ABI `abi` (1 to 5) cannot enforce.
pub(super) fn lacking_features(abi: i32) -> String {
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

/// The rights handled (refused unless a rule grants them) and those of a
/// device rule. Device ioctls (ABI 5) are handled: they are allowed on the
/// devices listed in [`build_ruleset`] (the terminal, `/dev/tty`, `/dev/pts`,
/// `/dev/ptmx`, `/dev/null`-like devices), on the descriptors the program
/// inherits (opened before the rules), and refused on every other device.
/// Without this, root opened `/dev/tty1` or `/dev/ttyS0` read-only (reading
/// is allowed everywhere) and changed that terminal's modes and size
/// (`TCSETS`, `TIOCSWINSZ`), or added loop devices (`/dev/loop-control`).
/// The ioctls that type into a terminal or change its line discipline are
/// also refused by seccomp, for the terminal the program was given.
fn access(abi: ABI) -> (BitFlags<AccessFs>, BitFlags<AccessFs>) {
    let handled = AccessFs::from_all(abi);
    let device =
        (AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev)
            & handled;
    (handled, device)
}

fn build_ruleset(req: &Request<'_>, plan: Option<&namespaces::Plan>, abi: ABI) -> Result<OwnedFd> {
    let fail = |e: &dyn std::fmt::Display| {
        Error::io(
            "build the sandbox's Landlock rules",
            &std::io::Error::other(e.to_string()),
        )
    };
    let (handled, device) = access(abi);
    let read = AccessFs::from_read(abi);
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
        // The private temporary folder is made in the child's own `/tmp`,
        // which gets its rule there.
        if plan.is_some_and(|p| p.makes(path)) {
            continue;
        }
        created = created
            .add_rule(rule(path, handled)?)
            .map_err(|e| fail(&e))?;
    }
    // The terminal (its own and any a program opens), and the devices
    // that discard or produce bytes; never the host's `/dev/shm`.
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

/// `struct landlock_path_beneath_attr`.
#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// Adds a rule for each path of `rules` (made in the child's mounts) to the
/// ruleset. A path that is missing is skipped.
///
/// # Safety
/// As [`super::apply_in_child`].
pub(super) unsafe fn add_child_rules<'a>(
    p: &Prepared,
    rules: impl Iterator<Item = (&'a CStr, Grant)>,
) -> std::result::Result<(), i32> {
    let Some(ruleset) = &p.ruleset else {
        return Ok(());
    };
    // SAFETY: open, the Landlock system call on a local struct, close.
    unsafe {
        for (path, grant) in rules {
            let fd = libc::open(path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
            if fd < 0 {
                continue;
            }
            let attr = PathBeneathAttr {
                allowed_access: match grant {
                    Grant::Writable => p.writable_bits,
                    Grant::Device => p.device_bits,
                },
                parent_fd: fd,
            };
            let r = libc::syscall(
                libc::SYS_landlock_add_rule,
                ruleset.as_raw_fd(),
                RULE_PATH_BENEATH,
                &attr as *const PathBeneathAttr,
                0u32,
            );
            let err = errno();
            libc::close(fd);
            if r != 0 {
                return Err(err);
            }
        }
    }
    Ok(())
}

/// Step 4: `landlock_restrict_self`, then the ruleset's descriptor closed.
///
/// # Safety
/// As [`super::apply_in_child`].
pub(super) unsafe fn restrict(p: &Prepared) -> std::result::Result<(), i32> {
    if let Some(fd) = &p.ruleset {
        let fd: RawFd = fd.as_raw_fd();
        // SAFETY: system calls on a descriptor made before the fork.
        unsafe {
            if libc::syscall(libc::SYS_landlock_restrict_self, fd, p.restrict_flags) != 0 {
                return Err(errno());
            }
            libc::close(fd);
        }
    }
    Ok(())
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
    fn older_abis_name_what_they_lack() {
        assert!(lacking_features(3).contains("TCP"));
        assert!(!lacking_features(3).contains("truncate"));
        assert!(lacking_features(2).contains("truncate"));
        assert!(lacking_features(5).contains("ABI 6"));
    }
}
