//! Users of their own for the suites running at once (when classlab runs as root): no two
//! concurrent suites share a uid, so the kernel's same-user rules (signals, `/proc/<pid>/mem`,
//! `prlimit`, `setpriority`, ptrace access) never let one reach another, whatever else fails.
//! Each suite gets a pair: the runner's uid and, for the split harness, the host's (`+ 1`).
//! A pair is reused only after its suite has ended (its processes are gone with its PID
//! namespace and cgroup; its files with its tmpfs).

use std::sync::Mutex;

/// First uid handed out: far above any account a system or a directory service assigns (and
/// above the 16-bit and 65534 "nobody" conventions), below the 32-bit `-1` that means "no
/// change" to `setresuid`.
pub const FIRST_SUITE_UID: u32 = 1_900_000_000;

/// Pairs most suites at once can hold (more than any pool runs concurrently).
const PAIRS: usize = 1 << 16;

/// Slots of uid pairs, taken by running suites.
#[derive(Debug, Default)]
pub(crate) struct UidPool {
    taken: Mutex<Vec<bool>>,
}

/// A pair of uids held by one suite until dropped.
#[derive(Debug)]
pub(crate) struct UidLease<'a> {
    pool: &'a UidPool,
    slot: usize,
}

impl UidPool {
    /// The lowest free pair (`None` only past [`PAIRS`] suites at once).
    pub fn lease(&self) -> Option<UidLease<'_>> {
        let mut taken = self.taken.lock().unwrap_or_else(|e| e.into_inner());
        let slot = match taken.iter().position(|t| !t) {
            Some(s) => s,
            None if taken.len() < PAIRS => {
                taken.push(false);
                taken.len() - 1
            }
            None => return None,
        };
        taken[slot] = true;
        Some(UidLease { pool: self, slot })
    }
}

impl UidLease<'_> {
    /// The runner's uid (and gid).
    pub fn runner(&self) -> u32 {
        FIRST_SUITE_UID + 2 * self.slot as u32
    }

    /// The split harness host's uid (and gid), never the runner's.
    pub fn host(&self) -> u32 {
        self.runner() + 1
    }
}

impl Drop for UidLease<'_> {
    fn drop(&mut self) {
        let mut taken = self.pool.taken.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = taken.get_mut(self.slot) {
            *t = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrent_leases_differ_and_freed_ones_come_back() {
        let pool = UidPool::default();
        let a = pool.lease().unwrap();
        let b = pool.lease().unwrap();
        assert_ne!(a.runner(), b.runner());
        assert_eq!(b.runner(), a.runner() + 2, "a pair each");
        assert_ne!(a.host(), b.runner());
        assert_ne!(a.runner(), a.host());
        assert_eq!(a.runner(), FIRST_SUITE_UID);
        let freed = a.runner();
        drop(a);
        let c = pool.lease().unwrap();
        assert_eq!(c.runner(), freed);
        assert_ne!(c.runner(), b.runner());
    }
}
