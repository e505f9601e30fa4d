#!/usr/bin/env bash
# A folder of real PDFs for `cargo bench --bench pdf`: the documentation PDFs
# that Debian's doc packages ship (gnuplot, Asymptote, GLPK, Gmsh, R's
# manuals; 15 files, 1,984 pages, all free software documentation under their
# packages' licences). Downloads the .deb files with apt (no install), unpacks
# them, and copies the PDFs into DIR (default: .home/bench-pdf).
#
#   bench/pdf_corpus.sh [DIR]
#   SLEUTH_BENCH_PDFS=DIR cargo bench --bench pdf
set -euo pipefail
dir="${1:-.home/bench-pdf}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$dir"
cd "$work"
apt-get download gnuplot-doc asymptote-doc glpk-doc r-doc-pdf gmsh-doc
for deb in *.deb; do dpkg -x "$deb" x; done
cd - >/dev/null
src="$work/x/usr/share"
cp "$src/doc/asymptote/asymptote.pdf" "$src/doc/asymptote/asy-latex.pdf" "$src/doc/asymptote/CAD.pdf" \
   "$src/doc/glpk-doc/glpk.pdf" "$src/doc/glpk-doc/gmpl.pdf" "$src/doc/glpk-doc/graphs.pdf" \
   "$src/doc/gnuplot/gnuplot.pdf" \
   "$src/R/doc/manual/R-FAQ.pdf" "$src/R/doc/manual/R-admin.pdf" "$src/R/doc/manual/R-data.pdf" \
   "$src/R/doc/manual/R-intro.pdf" "$src/R/doc/manual/R-lang.pdf" "$src/R/doc/manual/R-ints.pdf" \
   "$src/R/doc/manual/R-exts.pdf" "$dir/"
gunzip -c "$src/doc/gmsh-doc/gmsh.pdf.gz" > "$dir/gmsh.pdf"
ls -1 "$dir"/*.pdf | wc -l | xargs echo "PDFs in $dir:"
