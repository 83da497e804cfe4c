//! The self-contained HTML report.
use super::doc::ReportDoc;

pub fn html(doc: &ReportDoc) -> String {
    super::text::markdown(doc)
}
