//! The HTML report: one self-contained file (inline CSS and SVG, nothing fetched) with the
//! metrics and their error bars, the fingerprints as stacked bars, exception and cause
//! shares, the task × session grid as a heatmap, and the slice plots.

use std::fmt::Write as _;

use super::doc::ReportDoc;
use super::svg::{Svg, bucket_color, cause_color, esc, ink_on, series_color};
use super::text::{pair_table, slice_table, with_ci};
use crate::cli::table::Rows;
use crate::metrics::fingerprint::Bucket;
use crate::stats::outcomes::METRICS;

const STYLE: &str = "body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}\
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border-bottom:1px solid #ddd;\
padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}\
h2{margin-top:2em}.legend span{display:inline-block;margin-right:1em}\
.sw{display:inline-block;width:.9em;height:.9em;margin-right:.3em;vertical-align:middle}";

fn table(rows: &Rows) -> String {
    let mut out = String::from("<table><tr>");
    for h in &rows.header {
        let _ = write!(out, "<th>{}</th>", esc(h));
    }
    out.push_str("</tr>");
    for r in &rows.rows {
        out.push_str("<tr>");
        for c in r {
            let _ = write!(out, "<td>{}</td>", esc(c));
        }
        out.push_str("</tr>");
    }
    out + "</table>"
}

fn legend(items: &[(String, &str)]) -> String {
    let mut out = String::from("<div class=\"legend\">");
    for (name, color) in items {
        let _ = write!(
            out,
            "<span><i class=\"sw\" style=\"background:{color}\"></i>{}</span>",
            esc(name)
        );
    }
    out + "</div>"
}

pub fn html(doc: &ReportDoc) -> String {
    let mut out = format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>classlab report</title>\
         <style>{STYLE}</style></head><body><h1>classlab report</h1>"
    );
    let series: Vec<(String, &str)> = doc
        .labels
        .iter()
        .enumerate()
        .map(|(i, l)| (l.clone(), series_color(i)))
        .collect();
    for (whom, caveat) in super::text::caveats(doc) {
        out += &format!(
            "<p><strong>Verdicts</strong> ({}): {}</p>",
            super::svg::esc(&whom),
            super::svg::esc(&caveat)
        );
    }
    out += "<h2>Metrics with 95% intervals</h2>";
    out += &legend(&series);
    out += &metrics_chart(doc);
    let mut rows = Rows::new(
        std::iter::once("metric (%)".to_string())
            .chain(doc.labels.iter().cloned())
            .collect(),
    );
    for m in METRICS {
        let mut r = vec![m.to_string()];
        r.extend(doc.sessions.iter().map(|s| {
            // A metric over nothing (no task, no test class) has no value: `n/a`, not 0.
            s.intervals
                .get(m)
                .map_or("n/a".into(), |i| match (i.se, i.design_effect) {
                    (Some(se), d) => format!(
                        "{} (se {:.1}, deff {})",
                        with_ci(i),
                        100.0 * se,
                        d.map_or("-".into(), |d| format!("{d:.2}"))
                    ),
                    _ => with_ci(i),
                })
        }));
        rows.row(r);
    }
    out += &table(&rows);
    out += "<h2>Failure fingerprints</h2>";
    out += &legend(
        &Bucket::ALL
            .iter()
            .map(|b| (b.as_str().to_string(), bucket_color(b.as_str())))
            .collect::<Vec<_>>(),
    );
    out += &stacked(doc, |s| {
        s.shares
            .spectrum
            .iter()
            .map(|x| (x.name.clone(), x.share, x.count, bucket_color(&x.name)))
            .collect()
    });
    let _ = write!(
        out,
        "<h2>{}</h2><p>{}</p>",
        esc(super::tampering::TITLE),
        esc(&super::tampering::caveat())
    );
    out += &table(&super::tampering::rate_rows(doc));
    for (label, samples) in super::tampering::attempt_lists(doc) {
        let _ = write!(out, "<p>{}:</p><ul>", esc(&label));
        for (id, evidence) in samples {
            let _ = write!(out, "<li>{}: {}</li>", esc(&id), esc(&evidence.join("; ")));
        }
        out += "</ul>";
    }
    out += "<h2>Exception shares (model's failing tests)</h2>";
    out += &exceptions_chart(doc);
    if doc
        .sessions
        .iter()
        .any(|s| s.causes.as_ref().is_some_and(|c| c.considered > 0))
    {
        out += "<h2>Why tests fail (AttributeError, TypeError, NameError, ImportError)</h2>";
        // Its own legend and colours (not the sessions'), each segment coloured by its cause.
        let causes: Vec<(String, &str)> = crate::metrics::causes::Cause::ALL
            .iter()
            .map(|c| (c.as_str().to_string(), cause_color(*c)))
            .collect();
        out += &legend(&causes);
        out += &stacked(doc, |s| {
            s.causes.as_ref().map_or(Vec::new(), |c| {
                c.rows
                    .iter()
                    .map(|r| (r.label.to_string(), r.share, r.count, cause_color(r.cause)))
                    .collect()
            })
        });
    }
    if let Some(t) = super::text::causes_table(doc) {
        out += &table(&t);
    }
    if let Some(g) = &doc.grid {
        out += "<h2>Tasks × sessions (most disagreement first)</h2>";
        out += &grid_chart(g);
    }
    for pair in &doc.pairs {
        let lines = super::text::pairing_lines(&pair.comparison);
        let _ = write!(
            out,
            "<h2>{} vs {}</h2><p>{}</p>",
            esc(&pair.a),
            esc(&pair.b),
            esc(lines.first().map_or("", String::as_str))
        );
        if lines.len() > 1 {
            out += "<ul>";
            for l in &lines[1..] {
                let _ = write!(out, "<li>{}</li>", esc(l.trim_start()));
            }
            out += "</ul>";
        }
        out += &table(&pair_table(&pair.comparison, doc.pairs.len() > 1));
    }
    for (i, (label, s)) in doc.labels.iter().zip(&doc.slices).enumerate() {
        let _ = write!(out, "<h2>{} by {}</h2>", esc(label), esc(&s.property));
        out += &slice_chart(s, series_color(i), doc.cutoff.as_deref());
        out += &table(&slice_table(s, doc.cutoff.as_deref()));
    }
    out + "</body></html>\n"
}

/// Plot height for a share in 0..=1.
fn y_of(v: f64, top: f64, height: f64) -> f64 {
    top + height * (1.0 - v.clamp(0.0, 1.0))
}

fn axis(svg: &mut Svg, left: f64, top: f64, width: f64, height: f64) {
    for k in 0..=4 {
        let v = k as f64 / 4.0;
        let y = y_of(v, top, height);
        svg.line(left, y, left + width, y, "#e5e5e5", 1.0);
        svg.text(left - 6.0, y + 4.0, &format!("{}%", k * 25), "end", 11.0);
    }
}

fn metrics_chart(doc: &ReportDoc) -> String {
    let (left, top, height) = (50.0, 10.0, 220.0);
    let n = doc.sessions.len().max(1) as f64;
    let group = 60.0 + 28.0 * n;
    let width = group * METRICS.len() as f64;
    let mut svg = Svg::new(left + width + 10.0, top + height + 30.0);
    axis(&mut svg, left, top, width, height);
    for (g, m) in METRICS.iter().enumerate() {
        let x0 = left + g as f64 * group + 30.0;
        for (i, s) in doc.sessions.iter().enumerate() {
            let Some(iv) = s.intervals.get(m) else {
                continue;
            };
            let x = x0 + i as f64 * 28.0;
            let y = y_of(iv.estimate, top, height);
            let title = format!("{} {m}: {}", doc.labels[i], with_ci(iv));
            svg.rect(x, y, 22.0, top + height - y, series_color(i), &title);
            svg.whisker(
                x + 11.0,
                y_of(iv.ci95.0, top, height),
                y_of(iv.ci95.1, top, height),
            );
        }
        svg.text(x0 + 14.0 * n, top + height + 18.0, m, "middle", 12.0);
    }
    svg.finish()
}

type Segment = (String, f64, usize, &'static str);

/// One horizontal 100 % bar per session.
fn stacked(
    doc: &ReportDoc,
    segments: impl Fn(&crate::session::report::RunReport) -> Vec<Segment>,
) -> String {
    let (left, width, bar) = (260.0, 600.0, 24.0);
    let mut svg = Svg::new(
        left + width + 20.0,
        10.0 + bar * 1.5 * doc.sessions.len() as f64,
    );
    for (i, s) in doc.sessions.iter().enumerate() {
        let y = 5.0 + i as f64 * bar * 1.5;
        svg.text(left - 8.0, y + bar * 0.7, &doc.labels[i], "end", 12.0);
        let mut x = left;
        for (name, share, count, color) in segments(s) {
            let w = width * share;
            svg.rect(
                x,
                y,
                w,
                bar,
                color,
                &format!("{name}: {count} ({:.1}%)", 100.0 * share),
            );
            if w > 34.0 {
                svg.text_in(
                    x + w / 2.0,
                    y + bar * 0.7,
                    &format!("{:.0}%", 100.0 * share),
                    11.0,
                    ink_on(color),
                );
            }
            x += w;
        }
    }
    svg.finish()
}

fn exceptions_chart(doc: &ReportDoc) -> String {
    let mut kinds: Vec<String> = doc
        .sessions
        .iter()
        .flat_map(|s| s.shares.exceptions.iter().map(|x| x.name.clone()))
        .collect();
    kinds.sort();
    kinds.dedup();
    let (left, width, row) = (170.0, 520.0, 14.0);
    let n = doc.sessions.len().max(1) as f64;
    let block = row * n + 10.0;
    let mut svg = Svg::new(
        left + width + 60.0,
        10.0 + block * kinds.len().max(1) as f64,
    );
    for (k, kind) in kinds.iter().enumerate() {
        let y0 = 5.0 + k as f64 * block;
        svg.text(left - 8.0, y0 + row * n / 2.0 + 4.0, kind, "end", 12.0);
        for (i, s) in doc.sessions.iter().enumerate() {
            let Some(x) = s.shares.exceptions.iter().find(|x| &x.name == kind) else {
                continue;
            };
            let y = y0 + i as f64 * row;
            let title = format!(
                "{} {kind}: {} ({:.1}% [{:.1}, {:.1}])",
                doc.labels[i],
                x.count,
                100.0 * x.share,
                100.0 * x.ci95.0,
                100.0 * x.ci95.1
            );
            svg.rect(left, y, width * x.share, row - 2.0, series_color(i), &title);
            svg.line(
                left + width * x.ci95.0,
                y + row / 2.0,
                left + width * x.ci95.1,
                y + row / 2.0,
                "#222",
                1.0,
            );
        }
    }
    svg.finish()
}

fn grid_chart(g: &crate::stats::grid::Grid) -> String {
    let rows = g.by_disagreement();
    let (left, cell, top) = (260.0, 7.0, 10.0);
    let mut svg = Svg::new(
        left + cell * rows.len().max(1) as f64 + 20.0,
        top + 20.0 * g.columns.len() as f64 + 10.0,
    );
    for (c, name) in g.columns.iter().enumerate() {
        let y = top + c as f64 * 20.0;
        svg.text(left - 8.0, y + 13.0, name, "end", 12.0);
        for (i, r) in rows.iter().enumerate() {
            let bucket = r.cells.get(c).copied().flatten();
            let name = bucket.map_or("not finished", |b| b.as_str());
            svg.rect(
                left + i as f64 * cell,
                y,
                cell - 1.0,
                18.0,
                bucket_color(name),
                &format!("{}: {name}", r.task_id),
            );
        }
    }
    svg.finish()
}

fn slice_chart(s: &crate::stats::slices::Slices, color: &str, cutoff: Option<&str>) -> String {
    let (left, top, height) = (50.0, 10.0, 180.0);
    let step = 110.0;
    let width = step * s.bins.len().max(1) as f64;
    let mut svg = Svg::new(left + width + 20.0, top + height + 30.0);
    axis(&mut svg, left, top, width, height);
    for (i, b) in s.bins.iter().enumerate() {
        let x = left + step * (i as f64 + 0.5);
        svg.text(
            x,
            top + height + 18.0,
            &super::text::bin_label(s, i, cutoff),
            "middle",
            11.0,
        );
        for (m, dx, fill) in [("class_success", -8.0, color), ("fun_success", 8.0, "#777")] {
            let Some(iv) = b.metrics.get(m) else { continue };
            svg.whisker(
                x + dx,
                y_of(iv.ci95.0, top, height),
                y_of(iv.ci95.1, top, height),
            );
            svg.circle(
                x + dx,
                y_of(iv.estimate, top, height),
                4.5,
                fill,
                &format!("{m}: {} ({} tasks)", with_ci(iv), b.tasks),
            );
        }
    }
    svg.finish()
}
