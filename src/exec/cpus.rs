//! One CPU per split suite: the runner and the host of a suite take turns (one waits while
//! the other works), so they share a CPU. A request then hands the CPU over within one core
//! instead of waking the peer on another, which on a virtual machine costs an inter-processor
//! interrupt per message: measured here, a call through the object protocol took 350–480 µs
//! of wall time with the two processes on different CPUs and 120–180 µs on one. Suites running
//! at once get different CPUs while there are enough; past that, the least used.

use std::sync::Mutex;

/// The CPUs this process may run on, each with the number of suites holding it.
#[derive(Debug)]
pub(crate) struct CpuPool {
    held: Mutex<Vec<(usize, usize)>>,
}

/// A CPU held by one suite until dropped.
#[derive(Debug)]
pub(crate) struct CpuLease<'a> {
    pool: &'a CpuPool,
    cpu: usize,
}

impl CpuPool {
    /// The CPUs of this process's affinity mask (none when it cannot be read: no pinning).
    pub fn of_this_process() -> CpuPool {
        CpuPool::of(allowed_cpus())
    }

    pub fn of(cpus: Vec<usize>) -> CpuPool {
        CpuPool {
            held: Mutex::new(cpus.into_iter().map(|c| (c, 0)).collect()),
        }
    }

    /// The least held CPU (the lowest first among equals); `None` without any.
    pub fn lease(&self) -> Option<CpuLease<'_>> {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let slot = held.iter_mut().min_by_key(|(cpu, n)| (*n, *cpu))?;
        slot.1 += 1;
        Some(CpuLease {
            pool: self,
            cpu: slot.0,
        })
    }
}

impl CpuLease<'_> {
    pub fn cpu(&self) -> usize {
        self.cpu
    }
}

impl Drop for CpuLease<'_> {
    fn drop(&mut self) {
        let mut held = self.pool.held.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(slot) = held.iter_mut().find(|(c, _)| *c == self.cpu) {
            slot.1 = slot.1.saturating_sub(1);
        }
    }
}

fn allowed_cpus() -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; the call fills it for this thread.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid cpu_set_t of the size given.
    let rc =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return Vec::new();
    }
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: `set` is initialised and the index is below CPU_SETSIZE.
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect()
}

/// Pin the calling process (and what it forks afterwards) to `cpu`. Best effort: a CPU the
/// process may not use leaves it as it was.
pub(crate) fn pin_to(cpu: usize) {
    if cpu >= libc::CPU_SETSIZE as usize {
        return;
    }
    // SAFETY: as in `allowed_cpus`; CPU_SET on an index below CPU_SETSIZE.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suites_at_once_get_different_cpus_until_they_run_out() {
        let pool = CpuPool::of(vec![2, 5]);
        let a = pool.lease().unwrap();
        let b = pool.lease().unwrap();
        assert_eq!((a.cpu(), b.cpu()), (2, 5));
        let c = pool.lease().unwrap();
        assert_eq!(c.cpu(), 2, "past the CPUs, the least held");
        drop(b);
        assert_eq!(
            pool.lease().unwrap().cpu(),
            5,
            "a freed CPU is the least held again"
        );
        assert!(CpuPool::of(Vec::new()).lease().is_none());
    }

    #[test]
    fn this_process_may_run_somewhere() {
        let pool = CpuPool::of_this_process();
        assert!(pool.lease().is_some());
    }
}
