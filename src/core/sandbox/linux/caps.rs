//! Step 3: the capabilities that reach around the rules leave the
//! bounding, ambient, inheritable, permitted and effective sets.

use super::errno;

/// The capabilities a sandboxed root loses, by number (`capability.h`):
/// `DAC_READ_SEARCH` (2, `open_by_handle_at`), `LINUX_IMMUTABLE` (9),
/// `NET_ADMIN` (12), `NET_RAW` (13), `IPC_LOCK` (14), `IPC_OWNER` (15),
/// `SYS_MODULE` (16), `SYS_RAWIO` (17), `SYS_CHROOT` (18), `SYS_PTRACE` (19),
/// `SYS_PACCT` (20), `SYS_ADMIN` (21), `SYS_BOOT` (22), `SYS_NICE` (23),
/// `SYS_RESOURCE` (24), `SYS_TIME` (25), `SYS_TTY_CONFIG` (26), `MKNOD` (27),
/// `LEASE` (28), `AUDIT_WRITE` (29), `AUDIT_CONTROL` (30), `SETFCAP` (31),
/// `MAC_OVERRIDE` (32), `MAC_ADMIN` (33), `SYSLOG` (34), `WAKE_ALARM` (35),
/// `BLOCK_SUSPEND` (36), `AUDIT_READ` (37), `PERFMON` (38), `BPF` (39),
/// `CHECKPOINT_RESTORE` (40), and `SETPCAP` (8), dropped last from the
/// bounding set since dropping needs it. `SYS_NICE`, `IPC_LOCK`,
/// `SYS_RESOURCE` and `LEASE` reach the outside without touching it: a
/// real-time or negative-nice busy loop starves every process of the
/// machine, memory locked past `RLIMIT_MEMLOCK` cannot be swapped out (the
/// OOM killer then takes processes outside), limits raised past their hard
/// value, a lease holds back another user's writes (Docker's default set
/// leaves all four out too). Kept: owning and reading files (`CHOWN`,
/// `DAC_OVERRIDE`, `FOWNER`, `FSETID`), `KILL` (scoped by Landlock),
/// `SETUID`/`SETGID`, `NET_BIND_SERVICE`, `NET_BROADCAST`: none of them
/// reaches past Landlock and the read-only mounts.
pub(crate) const DROPPED_CAPS: &[u32] = &[
    2, 9, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33,
    34, 35, 36, 37, 38, 39, 40, 8,
];

/// Step 3: [`DROPPED_CAPS`] out of every set. `privileged`: the process
/// holds capabilities (root, or the owner of a new user namespace), so a
/// failure is an error; otherwise it has none to lose and no-new-privs
/// keeps it so.
///
/// # Safety
/// As [`super::apply_in_child`].
pub(super) unsafe fn drop_all(privileged: bool) -> std::result::Result<(), i32> {
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
