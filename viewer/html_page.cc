// The page of `omprof view`: HTML, CSS and script in one file, the data as JSON inside it. No
// network access: everything it needs is here. Opened with "#selftest", the page clicks its
// widest top frame and writes what it drew and what the click did into <pre id="selftest">
// (the browser test reads it with chromium --dump-dom).
#include <string>

#include "viewer/html_script.h"
#include "viewer/html_view.h"
#include "viewer/json_text.h"

namespace omprof::viewer {

namespace {

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

const char* const kHead = R"HTML(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>)HTML";

const char* const kStyle = R"HTML(</title>
<style>
body{font:13px/1.4 system-ui,sans-serif;margin:0;padding:0 16px 32px;color:#222;background:#fafafa}
h1{font-size:18px;margin:12px 0 4px}h2{font-size:15px;margin:22px 0 6px}
table{border-collapse:collapse;font-size:12px;background:#fff}
th,td{border:1px solid #ddd;padding:2px 6px;text-align:right;white-space:nowrap}
th{background:#eee;position:sticky;top:0}td.t,th.t{text-align:left}
.tablebox{max-height:360px;overflow:auto;max-width:100%}
#controls{margin:6px 0;display:flex;gap:8px;align-items:center;flex-wrap:wrap}
#flame{position:relative;width:100%;overflow:hidden;background:#fff;border:1px solid #ccc}
.f{position:absolute;height:17px;box-sizing:border-box;border:1px solid #fff;overflow:hidden;
 white-space:nowrap;font-size:11px;line-height:15px;padding:0 3px;cursor:pointer;color:#111}
.f.anc{opacity:.55}.f.match{outline:2px solid #d0f;outline-offset:-2px;font-weight:bold}
#tip{position:fixed;pointer-events:none;background:#222;color:#fff;padding:4px 8px;border-radius:4px;
 font-size:12px;display:none;max-width:600px;white-space:pre-wrap;z-index:9}
.legend span{display:inline-block;width:12px;height:12px;vertical-align:middle;margin:0 4px 0 10px}
.bar{display:flex;height:14px;min-width:200px;background:#eee}.bar div{height:100%}
td.low{background:#f6c9c4}td.high{background:#cdebc5}
#plot text{font-size:11px}
#tlcanvas{width:100%;background:#fff;border:1px solid #ccc;cursor:crosshair;display:block}
#selftest{display:none}
</style></head><body>
<h1 id="title"></h1><div id="header"></div>
<div id="advice"></div>
<div id="timeline"></div>
<div id="scaling"></div>
<h2 id="treetitle">Call tree (user model): width = time, colour = share of wait</h2>
<div id="controls"><button id="reset">Reset zoom</button>
<input id="search" placeholder="search (regular expression)" size="32"><span id="matched"></span>
<span class="legend"><span style="background:rgb(240,160,80)"></span>work<span style="background:rgb(80,150,230)"></span>wait</span></div>
<div id="flame"></div><div id="tip"></div>
<h2>Explicit regions</h2><div id="regions" class="tablebox"></div>
<h2>Parallel regions</h2><div id="parallel" class="tablebox"></div>
<h2>Threads</h2><div id="threads" class="tablebox"></div>
<h2>Counters</h2><div id="counters" class="tablebox"></div>
<h2>MPI ranks</h2><div id="ranks" class="tablebox"></div>
<h2>OpenMP states</h2><div id="states" class="tablebox"></div>
<pre id="selftest"></pre>
<script id="data" type="application/json">)HTML";

}  // namespace

void write_html_page(std::ostream& out, const std::string& title, const nlohmann::json& data) {
  std::string json = json_text(data);
  // Inside <script>, "</script" ends the element and "<!--" switches the parser into states
  // where a later "</script>" no longer does (a region named "<!--<script>" swallowed the rest
  // of the page). '<' occurs in JSON only inside strings, where "\u003c" means the same: with
  // no '<' left, no sequence can end or change the script block.
  std::string escaped;
  escaped.reserve(json.size());
  for (char c : json) {
    if (c == '<')
      escaped += "\\u003c";
    else
      escaped += c;
  }
  out << kHead << html_escape(title) << kStyle << escaped << kHtmlScript;
}

}  // namespace omprof::viewer
