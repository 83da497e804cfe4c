//! The report as terminal tables, Markdown, tidy CSV and LaTeX (booktabs).

use super::doc::ReportDoc;
use super::tampering;
use crate::cli::table::{Rows, Table};
use crate::stats::outcomes::{Interval, METRICS, Share};

/// 0.4213 → "42.1".
fn p1(x: f64) -> String {
    format!("{:.1}", 100.0 * x)
}

/// "42.1 [32.9, 51.8]".
pub fn with_ci(i: &Interval) -> String {
    format!("{} [{}, {}]", p1(i.estimate), p1(i.ci95.0), p1(i.ci95.1))
}

/// A property value: whole numbers without decimals.
pub fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x:.3}")
    }
}

fn p_value(p: f64) -> String {
    if p < 0.0001 {
        "<0.0001".into()
    } else {
        format!("{p:.4}")
    }
}

/// Rows of (metric, per-session cell) for the interval table.
/// The last row says what EnvErr kept out of the denominators: tasks out of the class-level
/// metrics, test classes out of the others.
fn interval_rows(doc: &ReportDoc, cell: &dyn Fn(&Interval) -> String) -> Vec<Vec<String>> {
    let mut rows: Vec<Vec<String>> = METRICS
        .iter()
        .map(|m| {
            let mut row = vec![m.to_string()];
            row.extend(
                doc.sessions
                    .iter()
                    // Over nothing (no task, no test class): `n/a`, never 0.
                    .map(|s| s.intervals.get(m).map_or_else(|| "n/a".into(), cell)),
            );
            row
        })
        .collect();
    let mut env = vec!["EnvErr left out".to_string()];
    env.extend(doc.sessions.iter().map(|s| {
        format!(
            "{} tasks, {} test classes",
            s.env_err.tasks, s.env_err.test_classes
        )
    }));
    rows.push(env);
    rows
}

/// Standard errors of the test-class metrics: clustered (naive) and the design effect.
fn se_cell(i: &Interval) -> String {
    match (i.se, i.se_naive) {
        (Some(se), Some(naive)) => format!(
            "se {} (naive {}), deff {}, {} tasks",
            p1(se),
            p1(naive),
            i.design_effect.map_or("-".into(), |d| format!("{d:.2}")),
            i.clusters.unwrap_or(0)
        ),
        _ => format!("{}, n={}", i.method, i.n),
    }
}

/// Terminal: the interval table, the pairs, the slices, after the classic tables.
pub fn print_extras(doc: &ReportDoc) {
    let mut header = vec!["95% interval (%)".to_string()];
    header.extend(doc.labels.iter().cloned());
    let refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = Table::new(&refs);
    for r in interval_rows(doc, &|i| format!("{} {}", with_ci(i), se_cell(i))) {
        t.row(r);
    }
    println!();
    print!("{}", t.render());
    for s in &doc.sessions {
        for p in &s.pass_at_k {
            println!(
                "{}: pass@{} = {} [{}, {}] (bootstrap over {} tasks, seed {})",
                s.session,
                p.k,
                p1(p.estimate),
                p1(p.ci95.0),
                p1(p.ci95.1),
                p.tasks,
                p.bootstrap.seed
            );
        }
    }
    for (label, s) in doc.labels.iter().zip(&doc.sessions) {
        if let Some(r) = &s.repair_intervals {
            let f = |m: &crate::stats::interval::ClusteredMean, scale: f64| {
                format!(
                    "{:.2} [{:.2}, {:.2}]",
                    scale * m.mean,
                    scale * m.ci95.0,
                    scale * m.ci95.1
                )
            };
            println!(
                "{label}: repair rounds/method {}, methods repaired (%) {}, rounds/class {}",
                f(&r.rounds_per_method, 1.0),
                f(&r.methods_repaired, 100.0),
                f(&r.rounds_per_class, 1.0)
            );
        }
    }
    if let Some(t) = causes_table(doc) {
        println!();
        print!("{}", t.render());
    }
    for pair in &doc.pairs {
        println!();
        println!(
            "{} vs {}",
            crate::text::Escaped(&pair.a),
            crate::text::Escaped(&pair.b)
        );
        for line in pairing_lines(&pair.comparison) {
            println!("{line}");
        }
        print!(
            "{}",
            pair_table(&pair.comparison, doc.pairs.len() > 1).render()
        );
    }
    for (label, s) in doc.labels.iter().zip(&doc.slices) {
        println!();
        println!(
            "{label}: by {} ({} tasks without it)",
            s.property, s.missing
        );
        print!("{}", slice_table(s, doc.cutoff.as_deref()).render());
    }
}

/// What a comparison paired and what it left out, as lines: the tasks both sessions
/// finished, then each task left out of some metric with the metrics and the reason
/// (not finished, `EnvErr` on a side).
pub fn pairing_lines(c: &crate::stats::compare::Comparison) -> Vec<String> {
    let mut out = vec![format!(
        "Paired on the {} task{} both finished; each row pairs n of them (A and B are over \
         those n); {} task{} left out of some metric:",
        c.tasks,
        if c.tasks == 1 { "" } else { "s" },
        c.dropped.len(),
        if c.dropped.len() == 1 { "" } else { "s" },
    )];
    if c.dropped.is_empty()
        && let Some(l) = out.first_mut()
    {
        l.pop();
        l.push('.');
    }
    out.extend(
        c.dropped
            .iter()
            .map(|d| format!("  {}: {}", crate::text::Escaped(&d.task_id), d.reason)),
    );
    out
}

/// The metrics of one comparison (B − A).
/// One comparison's rows: each with its n (tasks or test classes paired), A and B over those
/// n — so a row's A or B can differ from the session's own figure, which is over all of its
/// tasks; the pairing lines say which tasks each metric left out and why.
pub fn pair_table(c: &crate::stats::compare::Comparison, holm: bool) -> Rows {
    let mut cols = vec!["metric", "n", "A", "B", "B−A", "95% CI", "p"];
    if holm {
        cols.push("p (Holm)");
    }
    cols.extend(["test", "effect"]);
    let mut t = Rows::new(cols.iter().map(|c| c.to_string()).collect());
    for (m, r) in METRICS.iter().filter_map(|m| Some((m, c.metrics.get(m)?))) {
        let unit = if m.starts_with("class_") {
            "tasks"
        } else {
            "test classes"
        };
        let mut row = vec![
            m.to_string(),
            format!("{} {unit}", r.n),
            p1(r.a),
            p1(r.b),
            format!("{:+.1}", 100.0 * r.diff),
            format!("[{}, {}]", p1(r.ci95.0), p1(r.ci95.1)),
            p_value(r.p),
        ];
        if holm {
            row.push(r.p_holm.map_or("-".into(), p_value));
        }
        row.push(r.test.to_string());
        row.push(match r.effect.value {
            Some(v) => format!("{} {v:+.2}", r.effect.name),
            None => format!("{} -", r.effect.name),
        });
        t.row(row);
    }
    t
}

/// A bin's name: its range, or for `first_seen` its year, or its side of the cut-off.
pub fn bin_label(s: &crate::stats::slices::Slices, i: usize, cutoff: Option<&str>) -> String {
    let Some(b) = s.bins.get(i) else {
        return String::new();
    };
    if s.property != crate::session::report::first_seen::PROPERTY {
        return format!("{}–{}", num(b.lo), num(b.hi));
    }
    match cutoff {
        Some(c) if i == 0 => format!("≤ {}", crate::text::escape_control(c)),
        Some(c) => format!("> {}", crate::text::escape_control(c)),
        None => crate::session::report::first_seen::year_of(b.hi).to_string(),
    }
}

pub fn slice_table(s: &crate::stats::slices::Slices, cutoff: Option<&str>) -> Rows {
    let mut cols = vec!["bin".to_string(), "tasks".to_string()];
    cols.extend(METRICS.iter().map(|m| m.to_string()));
    let mut t = Rows::new(cols);
    for (i, b) in s.bins.iter().enumerate() {
        let mut row = vec![bin_label(s, i, cutoff), b.tasks.to_string()];
        row.extend(
            METRICS
                .iter()
                .map(|m| b.metrics.get(m).map_or("n/a".into(), with_ci)),
        );
        t.row(row);
    }
    let mut row = vec!["Spearman ρ".to_string(), String::new()];
    row.extend(METRICS.iter().map(|m| {
        s.spearman.get(m).map_or("-".into(), |r| {
            format!("{:+.3} [{:+.3}, {:+.3}]", r.rho, r.ci95.0, r.ci95.1)
        })
    }));
    t.row(row);
    t
}

/// Input text for Markdown: control characters escaped (it may be read in a terminal).
fn md_text(s: &str) -> String {
    crate::text::escape_control(s).into_owned()
}

fn md_table(header: &[String], rows: &[Vec<String>]) -> String {
    let esc = |s: &String| md_text(s).replace('|', "\\|");
    let mut out = format!(
        "| {} |\n",
        header.iter().map(esc).collect::<Vec<_>>().join(" | ")
    );
    out += &format!("|{}\n", " --- |".repeat(header.len()));
    for r in rows {
        out += &format!(
            "| {} |\n",
            r.iter().map(esc).collect::<Vec<_>>().join(" | ")
        );
    }
    out
}

fn table_md(t: &Rows) -> String {
    md_table(&t.header, &t.rows)
}

/// What the harness that judged each session cannot vouch for, with the labels of the
/// sessions it concerns (in-process: forgeable verdicts), once per distinct caveat.
pub fn caveats(doc: &ReportDoc) -> Vec<(String, String)> {
    let mut out: Vec<(Vec<&str>, &str)> = Vec::new();
    for (i, s) in doc.sessions.iter().enumerate() {
        let Some(c) = s.harness_caveat.as_deref() else {
            continue;
        };
        let label = doc.labels.get(i).map_or(s.session.as_str(), String::as_str);
        match out.iter_mut().find(|(_, known)| *known == c) {
            Some((labels, _)) => labels.push(label),
            None => out.push((vec![label], c)),
        }
    }
    out.into_iter()
        // Labels are model names from the input: printed as visible escapes in every format.
        .map(|(labels, c)| {
            let whom = crate::text::escape_control(&labels.join(", ")).into_owned();
            (whom, c.to_string())
        })
        .collect()
}

pub fn markdown(doc: &ReportDoc) -> String {
    let mut out = String::from("# classlab report\n\n");
    for (whom, caveat) in caveats(doc) {
        out += &format!("> **Verdicts** ({whom}): {caveat}\n\n");
    }
    out += "## Metrics (%, 95% interval)\n\n";
    let mut header = vec!["metric".to_string()];
    header.extend(doc.labels.iter().cloned());
    out += &md_table(&header, &interval_rows(doc, &with_ci));
    out += "\nClass-level metrics: Wilson interval over tasks. Test-class metrics: clustered \
            standard error by task (naive beside it) and the design effect:\n\n";
    out += &md_table(&header, &interval_rows(doc, &se_cell));
    out += "\n## Fingerprint (% of classes, 95% Wilson interval)\n\n";
    let buckets: Vec<String> = doc
        .sessions
        .first()
        .map(|s| s.shares.spectrum.iter().map(|x| x.name.clone()).collect())
        .unwrap_or_default();
    let rows: Vec<Vec<String>> = buckets
        .iter()
        .map(|b| {
            let mut row = vec![b.clone()];
            row.extend(doc.sessions.iter().map(|s| {
                s.shares
                    .spectrum
                    .iter()
                    .find(|x| &x.name == b)
                    .map_or("-".into(), |x| {
                        format!("{} [{}, {}]", p1(x.share), p1(x.ci95.0), p1(x.ci95.1))
                    })
            }));
            row
        })
        .collect();
    out += &md_table(&header, &rows);
    out += &format!("\n## {}\n\n{}\n\n", tampering::TITLE, tampering::caveat());
    out += &table_md(&tampering::rate_rows(doc));
    for (label, samples) in tampering::attempt_lists(doc) {
        out += &format!("\n{label}:\n\n");
        for (id, evidence) in samples {
            out += &format!("- {id}: {}\n", evidence.join("; "));
        }
    }
    if let Some(t) = causes_table(doc) {
        out += "\n## Why tests fail (AttributeError, TypeError, NameError, ImportError)\n\n";
        out += &table_md(&t);
    }
    for pair in &doc.pairs {
        out += &format!(
            "\n## {} vs {}\n\n{}\n\n",
            md_text(&pair.a),
            md_text(&pair.b),
            pairing_lines(&pair.comparison)
                .iter()
                .map(|l| match l.strip_prefix("  ") {
                    Some(item) => format!("- {}", md_text(item)),
                    None => format!("{}\n", md_text(l)),
                })
                .collect::<Vec<_>>()
                .join("\n")
        );
        out += &table_md(&pair_table(&pair.comparison, doc.pairs.len() > 1));
    }
    for (label, s) in doc.labels.iter().zip(&doc.slices) {
        out += &format!("\n## {label} by {}\n\n", s.property);
        out += &table_md(&slice_table(s, doc.cutoff.as_deref()));
    }
    out
}

/// Failure causes × sessions: count and share with its interval; `None` when no session
/// has such failures.
pub fn causes_table(doc: &ReportDoc) -> Option<Rows> {
    if !doc
        .sessions
        .iter()
        .any(|s| s.causes.as_ref().is_some_and(|c| c.considered > 0))
    {
        return None;
    }
    let mut t = Rows::new(
        std::iter::once("cause".to_string())
            .chain(doc.labels.iter().cloned())
            .collect(),
    );
    for cause in crate::metrics::causes::Cause::ALL {
        let mut row = vec![cause.as_str().to_string()];
        row.extend(doc.sessions.iter().map(|s| {
            s.causes
                .iter()
                .flat_map(|c| &c.rows)
                .find(|r| r.cause == cause)
                .map_or("-".into(), |r| {
                    format!(
                        "{} ({}% [{}, {}])",
                        r.count,
                        p1(r.share),
                        p1(r.ci95.0),
                        p1(r.ci95.1)
                    )
                })
        }));
        t.row(row);
    }
    let mut row = vec!["explained".to_string()];
    row.extend(doc.sessions.iter().map(|s| {
        s.causes
            .as_ref()
            .map_or("-".into(), |c| format!("{}/{}", c.explained, c.considered))
    }));
    t.row(row);
    Some(t)
}

/// Tidy: one row per session × metric × slice.
pub fn csv(doc: &ReportDoc) -> anyhow::Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "session", "label", "metric", "slice", "estimate", "ci_low", "ci_high", "se", "se_naive",
        "n", "method",
    ])?;
    let opt = |x: Option<f64>| x.map_or(String::new(), |v| v.to_string());
    for (i, s) in doc.sessions.iter().enumerate() {
        let label = doc.labels.get(i).cloned().unwrap_or_default();
        let mut row = |metric: &str, slice: &str, iv: &Interval| {
            w.write_record([
                s.session.as_str(),
                label.as_str(),
                metric,
                slice,
                &iv.estimate.to_string(),
                &iv.ci95.0.to_string(),
                &iv.ci95.1.to_string(),
                &opt(iv.se),
                &opt(iv.se_naive),
                &iv.n.to_string(),
                iv.method,
            ])
        };
        for (m, iv) in &s.intervals {
            row(m, "all", iv)?;
        }
        if let Some(sl) = doc.slices.get(i) {
            for (j, b) in sl.bins.iter().enumerate() {
                let slice = if sl.property == crate::session::report::first_seen::PROPERTY {
                    format!(
                        "{} {}",
                        sl.property,
                        bin_label(sl, j, doc.cutoff.as_deref())
                    )
                } else {
                    format!("{} ({}, {}]", sl.property, b.lo, b.hi)
                };
                for (m, iv) in &b.metrics {
                    row(m, &slice, iv)?;
                }
            }
        }
        let causes: Vec<Share> = s
            .causes
            .iter()
            .flat_map(|c| &c.rows)
            .map(|r| Share {
                name: format!("{:?}", r.cause),
                count: r.count,
                share: r.share,
                ci95: r.ci95,
            })
            .collect();
        if let Some(fields) = tampering::csv_fields(doc, i) {
            w.write_record(fields)?;
        }
        for (kind, shares) in [
            ("bucket", &s.shares.spectrum),
            ("exception", &s.shares.exceptions),
            ("cause", &causes),
        ] {
            for x in shares {
                w.write_record([
                    s.session.as_str(),
                    label.as_str(),
                    &format!("{kind}:{}", x.name),
                    "all",
                    &x.share.to_string(),
                    &x.ci95.0.to_string(),
                    &x.ci95.1.to_string(),
                    "",
                    "",
                    &x.count.to_string(),
                    "wilson",
                ])?;
            }
        }
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

fn tex(s: &str) -> String {
    crate::text::escape_control(s)
        .replace('\\', "\\textbackslash{}")
        .replace('_', "\\_")
        .replace('%', "\\%")
        .replace('&', "\\&")
        .replace('#', "\\#")
        .replace('$', "\\$")
        // pdflatex knows no Unicode minus, en dash or rho.
        .replace('−', "$-$")
        .replace('–', "--")
        .replace('ρ', "$\\rho$")
}

/// A booktabs table: metrics × sessions, estimate with its 95 % interval.
pub fn latex(doc: &ReportDoc) -> String {
    let mut out = String::from("% classlab report (needs \\usepackage{booktabs})\n");
    for (whom, caveat) in caveats(doc) {
        out += &format!("% Verdicts ({whom}): {caveat}\n");
    }
    out += "\\begin{table}[t]\n\\centering\n\\small\n";
    out += &format!(
        "\\begin{{tabular}}{{l{}}}\n\\toprule\n",
        "c".repeat(doc.sessions.len())
    );
    out += "Metric";
    for l in &doc.labels {
        out += &format!(" & {}", tex(l));
    }
    out += " \\\\\n\\midrule\n";
    for row in interval_rows(doc, &|i| {
        format!(
            "{} {{\\scriptsize[{}, {}]}}",
            p1(i.estimate),
            p1(i.ci95.0),
            p1(i.ci95.1)
        )
    }) {
        out += &row
            .iter()
            .map(|c| {
                if c.contains("scriptsize") {
                    c.clone()
                } else {
                    tex(c)
                }
            })
            .collect::<Vec<_>>()
            .join(" & ");
        out += " \\\\\n";
    }
    out += &tampering::latex_row(doc);
    out += "\\bottomrule\n\\end{tabular}\n";
    out += "\\caption{ClassEval metrics (\\%) with 95\\% intervals: Wilson over tasks for class-level \
            metrics, task-clustered standard errors for test-class metrics; the tampering rate \
            (samples with a sign of an attempt, Wilson) is a lower bound.}\n";
    out += "\\end{table}\n";
    for pair in &doc.pairs {
        out += &latex_pair(pair, doc.pairs.len() > 1);
    }
    out
}

/// One paired comparison as a booktabs table (B − A with its interval, p, test).
fn latex_pair(pair: &crate::stats::compare::PairComparison, holm: bool) -> String {
    let t = pair_table(&pair.comparison, holm);
    let mut out = String::from("\\begin{table}[t]\n\\centering\n\\small\n");
    out += &format!(
        "\\begin{{tabular}}{{l{}}}\n\\toprule\n",
        "r".repeat(t.header.len() - 1)
    );
    out += &t
        .header
        .iter()
        .map(|h| tex(h))
        .collect::<Vec<_>>()
        .join(" & ");
    out += " \\\\\n\\midrule\n";
    for r in &t.rows {
        out += &r.iter().map(|c| tex(c)).collect::<Vec<_>>().join(" & ");
        out += " \\\\\n";
    }
    out += "\\bottomrule\n\\end{tabular}\n";
    out += &format!(
        "\\caption{{{} (A) vs {} (B), on the {} tasks both finished (n: tasks or test classes \
         paired per row; EnvErr left out): exact McNemar for class-level metrics, \
         task-clustered paired difference for test-class metrics.}}\n\\end{{table}}\n",
        tex(&pair.a),
        tex(&pair.b),
        pair.comparison.tasks
    );
    out
}
