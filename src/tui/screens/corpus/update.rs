//! How actions and the worker's replies change the corpus browser. Nothing here blocks: every
//! read of the store is a request to the worker.

use crate::corpus::Filter;
use crate::tui::action::Action;
use crate::tui::screen::{Nav, Outcome};
use crate::tui::shared::{Level, Shared};

use super::state::{ClassView, Cluster, Input, Pane, Panel, State, WINDOW};
use super::view;
use super::worker::{Reply, Request};

pub fn update(st: &mut State, sh: &mut Shared, action: Action) -> Outcome {
    if let Action::Resize(..) = action {
        // The app records the size and calls `clamp`.
        return Outcome::Ignored;
    }
    if st.class.is_some() {
        return class_update(st, sh, action);
    }
    if let Some((input, _)) = st.input {
        return input_update(st, sh, input, action);
    }
    let page = view::list_rows(st, sh.size).max(1) as i64;
    match action {
        Action::Up => move_by(st, sh, -1),
        Action::Down => move_by(st, sh, 1),
        Action::PageUp => move_by(st, sh, -page),
        Action::PageDown => move_by(st, sh, page),
        Action::Scroll(n) => move_by(st, sh, i64::from(n)),
        Action::Click { column, row } => match view::row_at(st, sh.size, column, row) {
            Some(i) => move_to(st, sh, i),
            None => return Outcome::Ignored,
        },
        Action::Top => move_to(st, sh, 0),
        Action::Bottom => move_to(st, sh, st.len().saturating_sub(1)),
        Action::Open => {
            if let Some(row) = st.selected_row() {
                let id = row.id;
                open_class(st, id);
            }
        }
        Action::StartFilter => start_input(st, Input::Search),
        Action::CycleStatusFilter => start_input(st, Input::Filter),
        Action::SortNext => {
            let cols = st.sortable();
            let i = cols.iter().position(|c| *c == st.sort.column).unwrap_or(0);
            st.sort.column = cols[(i + 1) % cols.len()].clone();
            st.sort.descending = st.sort.column.is_some();
            st.requery();
        }
        Action::SortReverse => {
            if st.sort.column.is_none() {
                sh.set_status(
                    Level::Info,
                    "store order (path, line) has no reverse: s sorts by a column",
                );
            } else {
                st.sort.descending = !st.sort.descending;
                st.requery();
            }
        }
        Action::ToggleMark => match st.sort.column.clone() {
            None => sh.set_status(
                Level::Info,
                "sort by a column first (s), then pin or unpin it",
            ),
            Some(c) => {
                if let Some(i) = st.columns.iter().position(|x| *x == c) {
                    st.columns.remove(i);
                    sh.set_status(Level::Info, format!("column {c} unpinned"));
                } else {
                    st.columns.push(c.clone());
                    sh.set_status(Level::Info, format!("column {c} pinned"));
                }
                st.requery();
            }
        },
        Action::NextTab | Action::PrevTab => {
            let all = Panel::ALL;
            let i = all.iter().position(|p| Some(*p) == st.panel).unwrap_or(0);
            let next = if action == Action::NextTab {
                (i + 1) % all.len()
            } else {
                (i + all.len() - 1) % all.len()
            };
            show_panel(st, all[next]);
        }
        Action::TogglePanel => match st.panel {
            Some(_) => st.panel = None,
            None => show_panel(st, st.last_panel),
        },
        Action::NextTask | Action::PrevTask => {
            let Some(id) = st.selected_row().map(|r| r.id) else {
                return ().into();
            };
            let step = if action == Action::NextTask { 1 } else { -1 };
            jump(st, sh, id, id, step);
        }
        Action::Back | Action::Close => sh.go(Nav::Back),
        _ => return Outcome::Ignored,
    }
    ().into()
}

fn input_update(st: &mut State, sh: &mut Shared, input: Input, action: Action) -> Outcome {
    let mut text = match input {
        Input::Filter => st.filter_text.clone(),
        Input::Search => st.search.clone(),
    };
    match action {
        Action::Input(c) => text.push(c),
        Action::InsertText(s) => text.push_str(s.lines().next().unwrap_or("")),
        Action::Backspace => {
            text.pop();
        }
        Action::ClearInput => text.clear(),
        Action::Submit => {
            st.input = None;
            return ().into();
        }
        Action::Back => {
            let (_, before) = st.input.take().unwrap_or((input, String::new()));
            set_input(st, input, before);
            return ().into();
        }
        Action::Up => {
            move_by(st, sh, -1);
            return ().into();
        }
        Action::Down => {
            move_by(st, sh, 1);
            return ().into();
        }
        Action::Resize(..) => return Outcome::Ignored,
        _ => return Outcome::Ignored,
    }
    set_input(st, input, text);
    ().into()
}

/// Set the filter or the search and run it (a filter only when it parses).
fn set_input(st: &mut State, input: Input, text: String) {
    match input {
        Input::Search => {
            if st.search != text {
                st.search = text;
                st.requery();
            }
        }
        Input::Filter => {
            let changed = st.filter_text != text;
            st.filter_text = text;
            match Filter::parse(&st.filter_text) {
                Ok(f) => {
                    st.filter_error = None;
                    if f != st.filter {
                        st.filter = f;
                        st.requery();
                    }
                }
                Err(e) => {
                    if changed {
                        st.filter_error = Some(e);
                    }
                }
            }
        }
    }
}

fn start_input(st: &mut State, input: Input) {
    let before = match input {
        Input::Filter => st.filter_text.clone(),
        Input::Search => st.search.clone(),
    };
    st.input = Some((input, before));
}

fn show_panel(st: &mut State, panel: Panel) {
    st.panel = Some(panel);
    st.last_panel = panel;
    want_panel_data(st);
}

/// Ask for what the shown panel needs (the funnel once, the selected class's clusters).
fn want_panel_data(st: &mut State) {
    match st.panel {
        Some(Panel::Funnel) if !st.funnel_asked => {
            st.funnel_asked = true;
            st.send(Request::Funnel);
        }
        Some(Panel::Duplicates) => {
            if let Some(id) = st.selected_row().map(|r| r.id) {
                want_clusters(st, id);
            }
        }
        _ => {}
    }
}

fn want_clusters(st: &mut State, id: i64) {
    let have = st.cluster.as_ref().is_some_and(|c| c.id == id);
    if !have && st.cluster_asked != Some(id) {
        st.cluster_asked = Some(id);
        st.send(Request::Clusters(id));
    }
}

fn open_class(st: &mut State, id: i64) {
    let pane = st.class.as_ref().map_or(Pane::Code, |c| c.pane);
    st.class = Some(ClassView {
        id,
        detail: None,
        pane,
        scroll: 0,
        left: 0,
    });
    st.send(Request::Detail(id));
}

/// Open the next (`step` 1) or previous (-1) member of `origin`'s duplicate cluster after
/// `current`; asks for the cluster first when it is not here yet.
fn jump(st: &mut State, sh: &mut Shared, origin: i64, current: i64, step: i64) {
    let Some(cluster) = st.cluster.as_ref().filter(|c| c.id == origin) else {
        st.pending_jump = Some((origin, current, step));
        want_clusters(st, origin);
        sh.set_status(Level::Info, "reading the class's duplicate clusters…");
        return;
    };
    let n = cluster.members.len() as i64;
    if n <= 1 {
        sh.set_status(Level::Info, "this class has no duplicates");
        return;
    }
    let at = cluster
        .members
        .iter()
        .position(|m| m.id == current)
        .map_or(0, |i| i as i64);
    let next = (at + step).rem_euclid(n) as usize;
    let id = cluster.members[next].id;
    let kind = if next < cluster.exact {
        "exact"
    } else {
        "near"
    };
    sh.set_status(Level::Info, format!("duplicate {}/{n} ({kind})", next + 1));
    open_class(st, id);
    if let Some(c) = st.class.as_mut() {
        c.scroll = 0;
    }
}

fn class_update(st: &mut State, sh: &mut Shared, action: Action) -> Outcome {
    let Some(view) = st.class.as_mut() else {
        return Outcome::Ignored;
    };
    let page = view::class_rows(sh.size).max(1);
    let lines = view
        .detail
        .as_ref()
        .map_or(0, |d| view::pane_len(d, view.pane));
    let max = lines.saturating_sub(page);
    match action {
        Action::Up => view.scroll = view.scroll.saturating_sub(1),
        Action::Down => view.scroll = (view.scroll + 1).min(max),
        Action::PageUp => view.scroll = view.scroll.saturating_sub(page),
        Action::PageDown => view.scroll = (view.scroll + page).min(max),
        Action::Scroll(n) => {
            view.scroll = (view.scroll as i64 + i64::from(n)).clamp(0, max as i64) as usize;
        }
        Action::Top => view.scroll = 0,
        Action::Bottom => view.scroll = max,
        Action::Left => view.left = view.left.saturating_sub(4),
        Action::Right => {
            let widest = view
                .detail
                .as_ref()
                .map_or(0, |d| view::widest_line(d, view.pane));
            view.left = (view.left + 4).min(widest.saturating_sub(8));
        }
        Action::LineStart => view.left = 0,
        Action::NextTab | Action::PrevTab | Action::GoTab(_) => {
            let all = Pane::ALL;
            let i = all.iter().position(|p| *p == view.pane).unwrap_or(0);
            let next = match action {
                Action::NextTab => (i + 1) % all.len(),
                Action::PrevTab => (i + all.len() - 1) % all.len(),
                Action::GoTab(n) => (usize::from(n).max(1) - 1).min(all.len() - 1),
                _ => i,
            };
            view.pane = all[next];
            view.scroll = 0;
            view.left = 0;
        }
        Action::NextTask | Action::PrevTask => {
            let current = view.id;
            let origin = st
                .cluster
                .as_ref()
                // linear-ok: the members of one duplicate cluster (a handful)
                .filter(|c| c.members.iter().any(|m| m.id == current))
                .map_or(current, |c| c.id);
            let step = if action == Action::NextTask { 1 } else { -1 };
            jump(st, sh, origin, current, step);
        }
        Action::Back | Action::Close => {
            st.class = None;
        }
        _ => return Outcome::Ignored,
    }
    ().into()
}

fn move_by(st: &mut State, sh: &Shared, delta: i64) {
    let to = (st.selected as i64 + delta).max(0) as u64;
    move_to(st, sh, to);
}

fn move_to(st: &mut State, sh: &Shared, to: u64) {
    let last = st.len().saturating_sub(1);
    st.selected = to.min(last);
    follow(st, sh);
    want_panel_data(st);
}

/// Keep the selection in view and the rows around the viewport fetched.
fn follow(st: &mut State, sh: &Shared) {
    let h = view::list_rows(st, sh.size).max(1) as u64;
    if st.selected < st.offset {
        st.offset = st.selected;
    } else if st.selected >= st.offset + h {
        st.offset = st.selected + 1 - h;
    }
    let max_offset = st.len().saturating_sub(h);
    st.offset = st.offset.min(max_offset);
    ensure_window(st, h);
}

/// Ask for the rows around the viewport when the window does not hold them.
fn ensure_window(st: &mut State, h: u64) {
    let end = (st.offset + h).min(st.len().max(st.offset + 1));
    let have_from = st.window_start;
    let have_to = st.window_start + st.rows.len() as u64;
    let covered = st.offset >= have_from && end <= have_to;
    let beyond = st.total.is_some_and(|t| st.offset >= t);
    if covered || beyond || (st.rows.is_empty() && st.total == Some(0)) {
        return;
    }
    let from = st.offset.saturating_sub(WINDOW / 3);
    if st
        .asked
        .is_some_and(|(f, l)| st.offset >= f && end <= f + l)
    {
        return;
    }
    st.asked = Some((from, WINDOW));
    st.send(Request::Page {
        generation: st.generation,
        offset: from,
        limit: WINDOW,
    });
}

pub fn clamp(st: &mut State, sh: &Shared) {
    let len = st.len();
    if st.selected >= len {
        st.selected = len.saturating_sub(1);
    }
    follow(st, sh);
    if let Some(view) = st.class.as_mut() {
        let page = view::class_rows(sh.size).max(1);
        let lines = view
            .detail
            .as_ref()
            .map_or(0, |d| view::pane_len(d, view.pane));
        view.scroll = view.scroll.min(lines.saturating_sub(page));
    }
}

/// Take the worker's replies; whether anything changed.
pub fn poll(st: &mut State, sh: &mut Shared) -> bool {
    let mut changed = false;
    while let Ok(reply) = st.rx.try_recv() {
        changed = true;
        match reply {
            Reply::Rows {
                generation,
                offset,
                rows,
            } => {
                if generation != st.generation {
                    continue;
                }
                let asked = st.asked.is_some_and(|(f, _)| f == offset);
                let covers = st.offset >= offset && st.offset < offset + rows.len() as u64;
                if asked || covers || st.rows.is_empty() {
                    if asked {
                        st.asked = None;
                    }
                    st.window_start = offset;
                    st.rows = rows;
                }
            }
            Reply::Count {
                generation,
                total,
                done,
            } => {
                if generation == st.generation {
                    st.total = Some(total);
                    st.counting = !done;
                }
            }
            Reply::Histogram {
                generation,
                histogram,
            } => {
                if generation == st.generation {
                    st.histogram = Some(histogram);
                }
            }
            Reply::Detail(detail) => {
                if let Some(view) = st.class.as_mut()
                    && view.id == detail.id
                {
                    let has_dups =
                        detail.dup_cluster.is_some() || detail.near_dup_cluster.is_some();
                    let id = detail.id;
                    view.detail = Some(*detail);
                    // Where it stands among its duplicates (unless a cluster holding it is here).
                    let known = st
                        .cluster
                        .as_ref()
                        // linear-ok: the members of one duplicate cluster (a handful)
                        .is_some_and(|c| c.members.iter().any(|m| m.id == id));
                    if has_dups && !known {
                        want_clusters(st, id);
                    }
                }
            }
            Reply::Clusters { id, members, exact } => {
                if st.cluster_asked == Some(id) {
                    st.cluster_asked = None;
                }
                st.cluster = Some(Cluster { id, members, exact });
                if let Some((origin, current, step)) = st.pending_jump
                    && origin == id
                {
                    st.pending_jump = None;
                    jump(st, sh, origin, current, step);
                }
            }
            Reply::Funnel(f) => st.funnel = Some(f),
            Reply::Error {
                generation,
                message,
            } => {
                sh.set_status(Level::Error, format!("corpus: {message}"));
                if generation.is_some() && generation == Some(st.generation) {
                    // The list cannot be read: say so in it rather than wait.
                    st.counting = false;
                    st.total.get_or_insert(0);
                    st.error = Some(message);
                }
            }
            Reply::Idle { seen } => st.seen = seen,
        }
    }
    if changed {
        clamp(st, sh);
        want_panel_data(st);
    }
    changed
}
