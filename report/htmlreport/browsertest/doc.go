// Package browsertest renders every kind of HTML report from the
// repository's fixtures and opens it in headless Chromium: the page must
// draw without a console error or a network request, its screenshot must
// not be blank, the flame graph and the timeline must draw as many
// elements as their data holds, and hostile names must appear as text. At
// 1280 and 800 px wide, no two of its pictures' labels may overlap or be
// cut, and each page is photographed at both widths.
//
// The tests skip, saying why, when no Chromium can be found: run
// scripts/browser-test.sh, which installs Debian's chromium package when it
// is missing. $SCHEDOCTOR_CHROMIUM names the browser binary to use;
// $SCHEDOCTOR_BENCH_TRACE a large trace for the size and time test;
// $SCHEDOCTOR_SCREENSHOTS (or the test flag -screenshots=DIR) a directory
// to keep the screenshots in (docs/html.md).
package browsertest
