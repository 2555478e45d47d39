//! The process tree: a root's descendants and the members of process
//! groups, deepest first (the order to signal them in), from one snapshot
//! of the table. The walk itself is platform-neutral and testable on a
//! table given by hand ([`collect_tree`]).

use std::collections::HashMap;

use super::{Pid, ProcInfo, ProcRef, list};

/// The descendants of `roots` (the roots included) and every member of the
/// process groups `groups`, deepest first: children come before their
/// parents, so a parent is still there to see its children go.
pub fn tree(roots: &[Pid], groups: &[Pid]) -> Vec<ProcRef> {
    collect_tree(&list(), roots, groups)
}

/// [`tree`] over a given table (testable without real processes).
pub fn collect_tree(table: &[ProcInfo], roots: &[Pid], groups: &[Pid]) -> Vec<ProcRef> {
    walk(table, roots, groups, None)
}

/// Like [`tree`], for roots known by identity: a root whose pid now belongs
/// to another process is left out, with everything below it.
///
/// The calling process is never included unless it is itself a root, and
/// the walk does not continue through it: signalling the tree of an ancestor
/// must not take us (or our own children) down with it. Our children given
/// as roots, or members of `groups`, are included as usual.
pub fn tree_of(roots: &[ProcRef], groups: &[Pid]) -> Vec<ProcRef> {
    let table = list();
    let verified: Vec<Pid> = roots
        .iter()
        .filter(|r| {
            table
                .iter()
                .any(|p| p.pid == r.pid && p.start_time == r.start_time)
        })
        .map(|r| r.pid)
        .collect();
    walk(&table, &verified, groups, Some(std::process::id() as Pid))
}

/// Collects the tree, deepest first. The walk does not go through `protect`
/// (unless it is a root): it, and whatever is reachable only through it, is
/// left out.
fn walk(table: &[ProcInfo], roots: &[Pid], groups: &[Pid], protect: Option<Pid>) -> Vec<ProcRef> {
    let protect = protect.filter(|p| !roots.contains(p));
    let mut children: HashMap<Pid, Vec<&ProcInfo>> = HashMap::new();
    for p in table {
        // A process is never its own child (pid 0's parent is itself).
        if p.ppid != p.pid {
            children.entry(p.ppid).or_default().push(p);
        }
    }
    let by_pid: HashMap<Pid, &ProcInfo> = table.iter().map(|p| (p.pid, p)).collect();
    let mut found: HashMap<Pid, &ProcInfo> = HashMap::new();
    let mut stack: Vec<&ProcInfo> = roots
        .iter()
        .filter_map(|pid| by_pid.get(pid).copied())
        .collect();
    stack.extend(table.iter().filter(|p| groups.contains(&p.pgid)));
    while let Some(p) = stack.pop() {
        // Skipping the protected process also skips what is below it, unless
        // that is reached another way (as a root or a group member).
        if Some(p.pid) == protect || found.contains_key(&p.pid) {
            continue;
        }
        found.insert(p.pid, p);
        stack.extend(children.get(&p.pid).into_iter().flatten());
    }
    // Depth = ancestors within the found set, however the roots were given
    // (a root can be another root's descendant).
    let depth = |p: &ProcInfo| {
        let mut depth = 0;
        let mut cur = p;
        while let Some(parent) = found.get(&cur.ppid) {
            if parent.pid == cur.pid || depth > found.len() {
                break;
            }
            depth += 1;
            cur = parent;
        }
        depth
    };
    let mut ordered: Vec<(usize, &ProcInfo)> = found.values().map(|p| (depth(p), *p)).collect();
    ordered.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.pid.cmp(&b.1.pid)));
    ordered.into_iter().map(|(_, p)| p.as_ref()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(pid: Pid, ppid: Pid, pgid: Pid) -> ProcInfo {
        ProcInfo {
            pid,
            ppid,
            pgid,
            sid: pgid,
            start_time: pid as u64 * 10,
            state: 'S',
        }
    }

    fn pids(refs: &[ProcRef]) -> Vec<Pid> {
        refs.iter().map(|r| r.pid).collect()
    }

    #[test]
    fn tree_is_deepest_first_and_includes_groups() {
        let table = vec![
            row(1, 0, 1),
            row(10, 1, 10),  // root
            row(11, 10, 10), // child
            row(12, 11, 12), // grandchild that left the group
            row(13, 12, 12), // great-grandchild
            row(20, 1, 10),  // group member reparented to init
            row(30, 1, 30),  // unrelated
        ];
        let got = pids(&collect_tree(&table, &[10], &[10]));
        assert_eq!(got.len(), 5);
        assert!(!got.contains(&30) && !got.contains(&1));
        let pos = |pid| got.iter().position(|&p| p == pid).unwrap();
        assert!(pos(13) < pos(12) && pos(12) < pos(11) && pos(11) < pos(10));
    }

    #[test]
    fn tree_order_does_not_depend_on_how_roots_are_given() {
        let table = vec![
            row(10, 1, 10),
            row(11, 10, 10),
            row(12, 11, 10),
            row(13, 12, 10),
        ];
        // Every process given as a root, parents first: still children first.
        assert_eq!(
            pids(&collect_tree(&table, &[10, 11, 12, 13], &[])),
            [13, 12, 11, 10]
        );
        assert_eq!(
            pids(&collect_tree(&table, &[13, 10], &[])),
            [13, 12, 11, 10]
        );
        assert!(collect_tree(&table, &[99], &[]).is_empty());
    }

    #[test]
    fn tree_does_not_walk_through_the_protected_process() {
        let table = vec![
            row(10, 1, 10),
            row(11, 10, 10),
            row(12, 11, 10),
            row(13, 10, 10),
        ];
        assert_eq!(pids(&walk(&table, &[10], &[], Some(11))), [13, 10]);
        // Below it, only what is named: a root, or a member of a named group.
        assert_eq!(pids(&walk(&table, &[10, 12], &[], Some(11))), [13, 10, 12]);
        assert_eq!(pids(&walk(&table, &[10], &[10], Some(11))), [13, 10, 12]);
        assert_eq!(pids(&walk(&table, &[11], &[], Some(11))), [12, 11]);
    }
}
