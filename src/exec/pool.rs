//! A pool of workers running suites concurrently, results streamed over a channel.
//!
//! ```no_run
//! # use classlab::exec::{Pool, Sandbox, SuiteSpec};
//! # use std::sync::Arc;
//! let sandbox = Arc::new(Sandbox::detect(None)?);
//! let pool = Pool::new(sandbox, 2);
//! pool.submit("ClassEval_0", SuiteSpec::unittest_one_module("class A: pass", "import unittest"));
//! pool.close(); // no more jobs: the result iterator ends when all are done
//! for (id, result) in pool.results() {
//!     println!("{id}: {:?}", result.failure);
//! }
//! # Ok::<(), classlab::exec::ExecError>(())
//! ```

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use crate::model::results::SuiteResult;

use super::{Sandbox, SuiteSpec};

struct Queue<I> {
    jobs: VecDeque<(I, SuiteSpec)>,
    closed: bool,
}

struct Shared<I> {
    queue: Mutex<Queue<I>>,
    ready: Condvar,
    /// Generation of cancellation: running suites started before a cancel are killed.
    cancel: AtomicBool,
}

/// Runs suites on `jobs` worker threads. Results arrive on [`Pool::results`] in completion
/// order, tagged with the submitted id.
pub struct Pool<I: Send + 'static> {
    shared: Arc<Shared<I>>,
    results: Receiver<(I, SuiteResult)>,
    workers: Vec<JoinHandle<()>>,
}

impl<I: Send + 'static> Pool<I> {
    /// `jobs = 0` means one per core.
    pub fn new(sandbox: Arc<Sandbox>, jobs: usize) -> Pool<I> {
        let jobs = if jobs == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            jobs
        };
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue {
                jobs: VecDeque::new(),
                closed: false,
            }),
            ready: Condvar::new(),
            cancel: AtomicBool::new(false),
        });
        let (tx, rx) = mpsc::channel();
        let workers = (0..jobs)
            .map(|n| {
                let shared = Arc::clone(&shared);
                let sandbox = Arc::clone(&sandbox);
                let tx: Sender<(I, SuiteResult)> = tx.clone();
                std::thread::Builder::new()
                    .name(format!("classlab-exec-{n}"))
                    .spawn(move || worker(&shared, &sandbox, &tx))
                    .expect("spawn exec worker")
            })
            .collect();
        Pool {
            shared,
            results: rx,
            workers,
        }
    }

    /// Queue a suite.
    pub fn submit(&self, id: I, spec: SuiteSpec) {
        let mut q = self.shared.queue.lock().expect("pool queue");
        q.jobs.push_back((id, spec));
        drop(q);
        self.shared.ready.notify_one();
    }

    /// No more submissions: workers stop when the queue is empty, and the results iterator
    /// ends after the last result.
    pub fn close(&self) {
        self.shared.queue.lock().expect("pool queue").closed = true;
        self.shared.ready.notify_all();
    }

    /// Drop queued suites and kill running ones (they report `cancelled`). The pool stays
    /// closed.
    pub fn cancel(&self) {
        let mut q = self.shared.queue.lock().expect("pool queue");
        q.jobs.clear();
        q.closed = true;
        self.shared.cancel.store(true, Ordering::SeqCst);
        drop(q);
        self.shared.ready.notify_all();
    }

    /// Suites waiting for a worker.
    pub fn queued(&self) -> usize {
        self.shared.queue.lock().expect("pool queue").jobs.len()
    }

    /// The result stream (blocking iteration; `try_recv` for polling).
    pub fn results(&self) -> &Receiver<(I, SuiteResult)> {
        &self.results
    }
}

fn worker<I: Send + 'static>(shared: &Shared<I>, sandbox: &Sandbox, tx: &Sender<(I, SuiteResult)>) {
    loop {
        let job = {
            let mut q = shared.queue.lock().expect("pool queue");
            loop {
                if let Some(j) = q.jobs.pop_front() {
                    break Some(j);
                }
                if q.closed {
                    break None;
                }
                q = shared.ready.wait(q).expect("pool queue");
            }
        };
        let Some((id, spec)) = job else { return };
        let result = sandbox.run_cancellable(&spec, &shared.cancel);
        if tx.send((id, result)).is_err() {
            return;
        }
    }
}

impl<I: Send + 'static> Drop for Pool<I> {
    fn drop(&mut self) {
        self.cancel();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}
