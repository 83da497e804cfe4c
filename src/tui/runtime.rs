//! The TUI without its terminal: the app, its background jobs, the list's filter worker and
//! the dataset filling in. The terminal loop (`tui::run_with`) and headless drivers (tests,
//! benchmarks) both go through it, so they behave the same.

use std::time::{Duration, Instant};

use super::action::Action;
use super::app::{App, Effect, Level};
use super::data::TaskRow;
use super::jobs::Jobs;
use super::list::{self, FilterWorker};

pub struct Runtime {
    pub app: App,
    pub jobs: Jobs,
    filter: ListFilter,
    /// Effects that need the whole dataset, held until it is loaded.
    deferred: Vec<Effect>,
    /// When the list was last asked to show new rows (at most every [`RELIST`] while loading).
    relisted: Option<Instant>,
    rows_waiting: bool,
    /// The dataset was still loading at the last pump (its end lists the last rows at once,
    /// so the header never says "done" over a list without them).
    was_loading: bool,
}

/// Background results handled between two looks at the terminal.
const BATCH: usize = 512;
/// Shortest time between two refreshes of the list while rows stream in.
const RELIST: Duration = Duration::from_millis(150);

impl Runtime {
    pub fn new(app: App, jobs: Jobs) -> Runtime {
        Runtime {
            app,
            jobs,
            filter: ListFilter::default(),
            deferred: Vec::new(),
            relisted: None,
            rows_waiting: false,
            was_loading: true,
        }
    }

    /// Something is happening in the background (poll the terminal more often).
    pub fn busy(&self) -> bool {
        self.app.sh.data.is_busy()
            || self.app.sh.list.pending.is_some()
            || self.rows_waiting
            || self.app.screens_busy()
    }

    /// Take in what the background sent: tasks and analyses, the list's answers, job results.
    /// Returns the effects the caller must carry out itself ([`Runtime::step`]).
    pub fn pump(&mut self) -> std::io::Result<Vec<Effect>> {
        self.tick();
        let (open, visible) = self.app.sh.wanted_tasks();
        let pumped = self.app.sh.data.pump(open, &visible);
        if pumped.any() | self.app.poll_screens() {
            self.app.sh.dirty = true;
        }
        let changed = self.app.sh.data.take_changed_rows();
        self.filter.sync(&self.app.sh.data.rows, &changed);
        let by_counts = !matches!(
            self.app.sh.list.sort,
            super::action::SortColumn::Id | super::action::SortColumn::Class
        );
        self.rows_waiting |= pumped.appended || (by_counts && !changed.is_empty());
        let due = self.relisted.is_none_or(|t| t.elapsed() >= RELIST);
        let loading = self.app.sh.data.is_loading();
        let load_ended = std::mem::replace(&mut self.was_loading, loading) && !loading;
        if self.rows_waiting && (due || load_ended || !self.app.sh.data.is_busy()) {
            self.rows_waiting = false;
            self.relisted = Some(Instant::now());
            self.app.sh.rows_changed();
        }
        if !self.deferred.is_empty() && !self.app.sh.data.is_loading() {
            for effect in std::mem::take(&mut self.deferred) {
                self.jobs.execute(effect, &self.app.sh.data.dataset);
            }
        }
        self.filter.send(&self.app)?;
        let mut out = Vec::new();
        for _ in 0..BATCH {
            let Some(action) = self.jobs.try_recv().or_else(|| self.filter.try_recv()) else {
                break;
            };
            out.extend(self.step(action));
        }
        Ok(out)
    }

    /// Carry out `effect` now, or once the dataset is loaded when it needs every task.
    pub fn defer_or_execute(&mut self, effect: Effect) {
        if self.app.sh.data.is_loading() && needs_dataset(&effect) {
            self.deferred.push(effect);
        } else {
            self.jobs.execute(effect, &self.app.sh.data.dataset);
        }
    }

    /// The wall clock for a live run's elapsed time: redraw when its second changes.
    fn tick(&mut self) {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        let ev = &mut self.app.sh.ev;
        if ev.running && now.floor() != ev.clock.floor() {
            self.app.sh.dirty = true;
        }
        ev.clock = now;
    }

    /// Update the app with one action and carry out its effects; returns those only the
    /// caller can carry out (quitting, the editor).
    pub fn step(&mut self, action: Action) -> Vec<Effect> {
        let mut out = Vec::new();
        for effect in self.app.update(action) {
            match effect {
                Effect::Quit | Effect::EditPart { .. } => out.push(effect),
                other => {
                    if self.app.sh.data.is_loading() && needs_dataset(&other) {
                        let text = "waiting for the dataset to finish loading…";
                        self.app.sh.set_status(Level::Info, text);
                    }
                    self.defer_or_execute(other);
                }
            }
        }
        out
    }
}

/// Effects that read every task of the dataset.
fn needs_dataset(effect: &Effect) -> bool {
    matches!(
        effect,
        Effect::OpenSession { .. }
            | Effect::CompareSessions { .. }
            | Effect::StartEval { .. }
            | Effect::StartRun(_)
            | Effect::LoadReview { .. }
            | Effect::ValidateTask { .. }
            | Effect::SaveReview { .. }
            | Effect::Rigor { .. }
    )
}

/// The task list's filter worker, started on the first request (only a long list makes any,
/// see `list::ListState::request`); it gets the rows as they arrive and the list's newest
/// request.
#[derive(Default)]
struct ListFilter {
    worker: Option<FilterWorker>,
    /// Requests and rows handed over so far.
    sent: u64,
    rows: usize,
}

impl ListFilter {
    /// Hand the worker the rows it does not have and the rows whose counts changed.
    fn sync(&mut self, rows: &[TaskRow], changed: &[usize]) {
        let Some(worker) = &self.worker else { return };
        if rows.len() > self.rows {
            worker.append(rows[self.rows..].to_vec());
            self.rows = rows.len();
        }
        let updates: Vec<(usize, TaskRow)> = changed
            .iter()
            .filter(|&&i| i < self.rows)
            .filter_map(|&i| Some((i, rows.get(i)?.clone())))
            .collect();
        if !updates.is_empty() {
            worker.update(updates);
        }
    }

    /// Hand the list's newest request to the worker, once.
    fn send(&mut self, app: &App) -> std::io::Result<()> {
        let Some((req, _)) = app.sh.list.pending else {
            return Ok(());
        };
        if req == self.sent {
            return Ok(());
        }
        let worker = match self.worker.take() {
            Some(w) => w,
            None => {
                self.rows = app.sh.data.rows.len();
                list::FilterWorker::spawn(app.sh.data.rows.clone())?
            }
        };
        worker.request(req, app.sh.list.query());
        self.worker = Some(worker);
        self.sent = req;
        Ok(())
    }

    fn try_recv(&self) -> Option<Action> {
        self.worker.as_ref().and_then(FilterWorker::try_recv)
    }
}
