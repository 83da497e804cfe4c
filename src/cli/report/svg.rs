//! A small SVG writer for the HTML report (placeholder, filled in below).
