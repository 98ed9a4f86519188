#!/usr/bin/env python3
"""test_teach.py - the teaching tools against schedules worked out by hand.

    test_teach.py PMUSIM trace|svg|explain|scale|html|lab [DOC]
    test_teach.py PMUSIM run|exec LOOP_MUX

Each case's expected schedule comes from the kernel's rules applied by
hand (written next to the case): flexible groups go on in list order until
the first one that fails (merge_sched_in clears can_add_hw), pinned before
flexible, and every mux interval perf_rotate_context moves the first
flexible group that was on (or, if none was, the first one) to the tail.
The stream runs 3,000 blocks per ms; branches retire 160 per block.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

PMUSIM = sys.argv[1]
MS = 1000000

# name -> (sched options, {event: [(start_ms, end_ms), ...] merged}, {event: counter idx})
CASES = {
    # list [a b c d e f], 4 GP counters. t0: abcd; 4: rotate a -> bcde;
    # 8: cdef; 12: defa; 16: efab; 20: fabc. 16 ms each of 24.
    "six_on_four": (
        ["--duration-ms", "24", "-e",
         "branches,branch-misses,cache-references,cache-misses,bus-cycles,"
         "L1-dcache-load-misses"],
        {"branches": [(0, 4), (12, 24)], "branch-misses": [(0, 8), (16, 24)],
         "cache-references": [(0, 12), (20, 24)], "cache-misses": [(0, 16)],
         "bus-cycles": [(4, 20)], "L1-dcache-load-misses": [(8, 24)]},
        {}),
    # a pinned group of 4 takes every GP counter. Flexible [bus-cycles,
    # instructions]: bus-cycles fails (too many), so instructions is never
    # tried though fixed0 is free. 4: nothing flexible was on, rotate the
    # first (bus-cycles) -> [instructions, bus-cycles]: instructions on.
    # 8: rotate instructions -> [bus-cycles, instructions]: both off again.
    "pinned_starves": (
        ["-e", "{branches,branch-misses,cache-references,cache-misses}:D,bus-cycles,instructions"],
        {"branches": [(0, 24)], "branch-misses": [(0, 24)], "cache-references": [(0, 24)],
         "cache-misses": [(0, 24)], "bus-cycles": [], "instructions": [(4, 8), (12, 16), (20, 24)]},
        {"instructions": 32}),
    # pinned bus-cycles holds one GP counter: the group of 4 never fits
    # beside it (too many events) and reads <not counted>
    "never_fits": (
        ["-e", "bus-cycles:D,{branches,branch-misses,cache-references,cache-misses}"],
        {"bus-cycles": [(0, 24)], "branches": [], "branch-misses": [],
         "cache-references": [], "cache-misses": []},
        {}),
    # [a(excl) b c]. t0: a alone (b, c: an exclusive group is on). 4: rotate
    # a -> [b c a]: b c on, a waits. 8: rotate b -> [c a b]: c; a waits, b
    # not tried. 12: [a b c]: a. 16: [b c a]: b c. 20: [c a b]: c.
    "exclusive": (
        ["-e", "branches:e,branch-misses,cache-references"],
        {"branches": [(0, 4), (12, 16)], "branch-misses": [(4, 8), (16, 20)],
         "cache-references": [(4, 12), (16, 24)]},
        {}),
    # INST_RETIRED.PREC_DIST may use counter 1 only (intel_skl_event_constraints):
    # [p q b]. t0: p on gp1, q fails (constraint), b not tried. 4: rotate p
    # -> [q b p]: q, b on; p fails. 8: rotate q -> [b p q]: b, p. 12: rotate
    # b -> [p q b]: p only. 16: [q b p]: q, b. 20: [b p q]: b, p.
    "constraint": (
        ["-e", "inst_retired.prec_dist,r01c0,branches"],
        {"inst_retired.prec_dist": [(0, 4), (8, 16), (20, 24)], "r01c0": [(4, 8), (16, 20)],
         "branches": [(4, 12), (16, 24)]},
        {"inst_retired.prec_dist": 1, "r01c0": 1}),
    # fixed counters: instructions fixed0 (idx 32), cycles fixed1, ref-cycles
    # fixed2; the 4 GP events fit beside them: nothing multiplexes.
    "fixed": (
        ["-e", "instructions,cycles,ref-cycles,branches,branch-misses,cache-references,cache-misses"],
        {"instructions": [(0, 24)], "cycles": [(0, 24)], "ref-cycles": [(0, 24)],
         "branches": [(0, 24)], "branch-misses": [(0, 24)], "cache-references": [(0, 24)],
         "cache-misses": [(0, 24)]},
        {"instructions": 32, "cycles": 33, "ref-cycles": 34}),
    # PMUv3, 2 event counters + the cycle counter (idx 0). [cyc ins bm cm]:
    # t0 cyc ins bm, cm fails. 4: rotate cyc -> [ins bm cm cyc]: ins bm, cm
    # fails, cyc not tried. 8: rotate ins -> [bm cm cyc ins]: bm cm cyc.
    # 12: rotate bm -> [cm cyc ins bm]: cm cyc ins. 16: [cyc ins bm cm]:
    # cyc ins bm. 20: [ins bm cm cyc]: ins bm.
    "pmuv3": (
        ["--model", "pmuv3", "--counters", "2", "-e", "cycles,instructions,branch-misses,cache-misses"],
        {"cycles": [(0, 4), (8, 20)], "instructions": [(0, 8), (12, 24)],
         "branch-misses": [(0, 12), (16, 24)], "cache-misses": [(8, 16)]},
        {"cycles": 0}),
}

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(args, **kw):
    return subprocess.run([PMUSIM] + args, check=True, capture_output=True, text=True,
                          timeout=120, **kw).stdout


def trace_of(case, tmp):
    opts = CASES[case][0]
    path = os.path.join(tmp, case + ".json")
    run(["sched"] + opts + ["--trace-out", path])
    with open(path) as f:
        return path, json.load(f)


def merged(intervals):
    out = []
    for s, e in sorted(intervals):
        if e == s:
            continue
        if out and out[-1][1] == s:
            out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


def check_format(case, d):
    """The trace-event format: every event has ph, ts, pid, tid; slices on a
    thread nest or are disjoint; each counter track is monotone."""
    evs = d["traceEvents"]
    for e in evs:
        check(all(k in e for k in ("ph", "ts", "pid", "tid")), f"{case}: event lacks a field: {e}")
        check(e["ph"] in ("X", "i", "C", "M"), f"{case}: unexpected ph {e['ph']}")
    tracks = {}
    for e in evs:
        if e["ph"] == "X":
            check(e["dur"] >= 0, f"{case}: negative dur")
            check(abs(e["ts"] * 1000 - e["args"]["start_ns"]) < 0.5, f"{case}: ts != start_ns")
            tracks.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    for key, sl in tracks.items():
        sl.sort()
        for (s0, e0), (s1, e1) in zip(sl, sl[1:]):
            nested = s1 >= s0 and e1 <= e0
            check(s1 >= e0 - 1e-9 or nested, f"{case}: slices overlap on {key}")
    series = {}
    for e in evs:
        if e["ph"] == "C":
            key = (e["pid"], e["name"], e.get("id"))
            series.setdefault(key, []).append((e["ts"], e["args"]["time_enabled_ms"],
                                               e["args"]["time_running_ms"]))
    for key, s in series.items():
        for a, b in zip(s, s[1:]):
            check(b[0] >= a[0] and b[1] >= a[1] and b[2] >= a[2],
                  f"{case}: counter track {key} not monotone: {a} -> {b}")
            # running grows at most as fast as enabled
            check(b[2] - a[2] <= b[1] - a[1] + 1e-9, f"{case}: running outgrew enabled on {key}")


def residencies(d):
    return [e for e in d["traceEvents"] if e["ph"] == "X" and e.get("cat") == "counter"]


def check_schedule(case, d):
    _, expect, idx = CASES[case]
    got = {}
    for e in residencies(d):
        a = e["args"]
        got.setdefault(e["name"], []).append((a["start_ns"] / MS, (a["start_ns"] + a["dur_ns"]) / MS))
        if e["name"] in idx:
            check(e["tid"] == idx[e["name"]],
                  f"{case}: {e['name']} on counter {e['tid']}, want {idx[e['name']]}")
    for name, want in expect.items():
        check(merged(got.get(name, [])) == want,
              f"{case}: {name} held counters {merged(got.get(name, []))}, want {want}")
    # one event per counter at a time
    rows = {}
    for e in residencies(d):
        if e["dur"] > 0:
            rows.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    for key, sl in rows.items():
        sl.sort()
        check(all(b[0] >= a[1] for a, b in zip(sl, sl[1:])), f"{case}: two events on {key}")
    table = {ev["name"]: ev for ev in d["otherData"]["pmusim"]["events"]}
    # the residencies add up to the time_running read() returned (group
    # members run with their leader, whose residencies are their own)
    held = {}
    for e in residencies(d):
        held[e["name"]] = held.get(e["name"], 0) + e["args"]["dur_ns"]
    for name, ev in table.items():
        check(held.get(name, 0) == ev["running_ns"],
              f"{case}: {name} residencies {held.get(name, 0)} ns, read() ran {ev['running_ns']}")
    for name, want in expect.items():
        running = sum(e - s for s, e in want)
        check(name in table and table[name]["running_ns"] == running * MS,
              f"{case}: {name} time_running {table.get(name, {}).get('running_ns')}, want {running} ms")


def failures_at(d, t_ms):
    return {e["name"]: e["args"]["reason"] for e in d["traceEvents"]
            if e["ph"] == "i" and e.get("cat") == "failure" and e["args"]["t_ns"] == round(t_ms * MS)}


def test_trace(tmp):
    for case in CASES:
        _, d = trace_of(case, tmp)
        check_format(case, d)
        check_schedule(case, d)
    # the reasons, by hand: see the cases above
    _, d = trace_of("pinned_starves", tmp)
    check(failures_at(d, 0) == {"not on: bus-cycles": "too many events",
                                "not on: instructions": "an earlier group failed"},
          f"pinned_starves: failures at 0: {failures_at(d, 0)}")
    _, d = trace_of("constraint", tmp)
    check(failures_at(d, 0) == {"not on: r01c0": "counter constraint",
                                "not on: branches": "an earlier group failed"},
          f"constraint: failures at 0: {failures_at(d, 0)}")
    _, d = trace_of("exclusive", tmp)
    check(failures_at(d, 0) == {"not on: branch-misses": "an exclusive group is on",
                                "not on: cache-references": "an exclusive group is on"},
          f"exclusive: failures at 0: {failures_at(d, 0)}")
    check(failures_at(d, 4) == {"not on: branches": "exclusive group, others are on"},
          f"exclusive: failures at 4: {failures_at(d, 4)}")
    _, d = trace_of("never_fits", tmp)
    check(failures_at(d, 0) == {"not on: branches": "too many events"},
          f"never_fits: failures at 0: {failures_at(d, 0)}")
    rot = [e["args"]["t_ns"] for e in d["traceEvents"] if e.get("cat") == "rotation"]
    check(rot == [4 * MS, 8 * MS, 12 * MS, 16 * MS, 20 * MS, 24 * MS], f"never_fits: rotations {rot}")
    # a pinned group that cannot go on: ERROR, reads nothing
    path = os.path.join(tmp, "error.json")
    out = run(["sched", "-e", "{branches,branch-misses,cache-references}:D,{cache-misses,bus-cycles}:D",
               "--trace-out", path])
    d = json.load(open(path))
    check(failures_at(d, 0) == {"error: cache-misses": "pinned group in error"},
          f"error: failures at 0: {failures_at(d, 0)}")
    check(re.search(r"^cache-misses\s+<not counted>", out, re.M), "error: sched prints <not counted>")


def svg_tree(case, tmp, d_path):
    svg = os.path.join(tmp, case + ".svg")
    run(["timeline", d_path, "-o", svg])
    return ET.parse(svg).getroot()


NS = "{http://www.w3.org/2000/svg}"


def test_svg(tmp):
    for case in CASES:
        path, d = trace_of(case, tmp)
        root = svg_tree(case, tmp, path)
        meta = d["otherData"]["pmusim"]
        rows = [g for g in root.iter(NS + "g") if g.get("class") == "row"]
        check([int(g.get("data-idx")) for g in rows] == [c["idx"] for c in meta["counters"]],
              f"{case}: svg rows {[g.get('data-idx') for g in rows]}")
        want = sorted((e["tid"], e["name"], e["args"]["start_ns"], e["args"]["start_ns"] + e["args"]["dur_ns"])
                      for e in residencies(d) if e["dur"] > 0)
        got = []
        for g in rows:
            for r in g.iter(NS + "rect"):
                if "span" in (r.get("class") or "").split():
                    got.append((int(g.get("data-idx")), r.get("data-event"),
                                int(r.get("data-start-ns")), int(r.get("data-end-ns"))))
        check(sorted(got) == want, f"{case}: svg spans differ from the trace's residencies")
        # every span names its event (title); those wide enough carry a label
        names = {w[1] for w in want}
        labels = [t.text for t in root.iter(NS + "text") if t.get("class") == "label"]
        check(all(any(n.startswith(l.rstrip("\u2026")) for n in names) for l in labels)
              and len(labels) <= len(want), f"{case}: labels {labels}")
        titles = [r.find(NS + "title").text.split(":")[0].split(" (")[0] for g in rows for r in g.iter(NS + "rect")
                  if "span" in (r.get("class") or "").split()]
        check(sorted(titles) == sorted(w[1] for w in want), f"{case}: span titles {titles}")
        if case == "six_on_four":  # 4 ms is 150 px: every name fits
            check(len(labels) == len(want), f"{case}: {len(labels)} labels for {len(want)} spans")
        ticks = [l for l in root.iter(NS + "line") if l.get("class") == "tick"]
        nrot = sum(1 for e in d["traceEvents"] if e.get("cat") == "rotation")
        check(len(ticks) == nrot, f"{case}: {len(ticks)} ticks for {nrot} rotations")
        trows = [g.get("data-event") for g in root.iter(NS + "g") if g.get("class") == "event-row"]
        check(sorted(trows) == sorted(CASES[case][1]), f"{case}: table rows {trows}")
    # pinned and exclusive spans are marked
    path, d = trace_of("pinned_starves", tmp)
    root = svg_tree("pinned_starves", tmp, path)
    pinned = [r.get("data-event") for r in root.iter(NS + "rect") if "pinned" in (r.get("class") or "")]
    check(sorted(set(pinned)) == ["branch-misses", "branches", "cache-misses", "cache-references"],
          f"pinned spans {sorted(set(pinned))}")
    path, d = trace_of("exclusive", tmp)
    root = svg_tree("exclusive", tmp, path)
    excl = [r.get("data-event") for r in root.iter(NS + "rect") if "exclusive" in (r.get("class") or "")]
    check(set(excl) == {"branches"}, f"exclusive spans {set(excl)}")


def test_scale(tmp):
    """Skylake's 7 counters, 30 events, 1000 rotations: the picture aggregates."""
    events = ",".join(f"r{u:02x}c4" for u in range(27)) + ",instructions,cycles,ref-cycles"
    path = os.path.join(tmp, "big.json")
    run(["sched", "--mux-interval", "1", "--duration-ms", "1000",
         "-e", events, "--trace-out", path])
    d = json.load(open(path))
    nrot = sum(1 for e in d["traceEvents"] if e.get("cat") == "rotation")
    check(nrot == 1000, f"scale: {nrot} rotations, want 1000")
    root = svg_tree("big", tmp, path)
    rects = [r for r in root.iter(NS + "rect") if (r.get("class") or "") in ("span", "agg")]
    aggs = [r for r in rects if r.get("class") == "agg"]
    ticks = [l for l in root.iter(NS + "line") if l.get("class") == "tick"]
    check(aggs, "scale: no aggregation")
    # at most one rectangle per MIN_SPAN_PX (3 px) of the 900 px axis per row
    check(len(rects) <= 7 * 900 // 3, f"scale: {len(rects)} rectangles")
    check(len(ticks) <= 900 // 4 + 1, f"scale: {len(ticks)} ticks")
    covered = sum(int(r.get("data-residencies") or 1) for r in rects)
    nres = sum(1 for e in residencies(d) if e["dur"] > 0)
    check(covered == nres, f"scale: rectangles stand for {covered} residencies of {nres}")
    check(os.path.getsize(os.path.join(tmp, "big.svg")) < 3 << 20, "scale: svg too big")


def test_explain(tmp):
    out = run(["explain", "--model", "skylake", "-e",
               "{branches,branch-misses,cache-references,cache-misses}:D,bus-cycles,instructions"])
    check("an earlier flexible group did not fit" in out, "explain: the can_add_hw reason")
    # the order by hand: pinned group first, then the flexible list; at 4 ms
    # bus-cycles (never on) went to the tail
    check("0.000 ms  start\n               tried in this order: {branches,branch-misses,"
          "cache-references,cache-misses}, bus-cycles (fails), instructions (not tried)" in out,
          "explain: the order at 0")
    check("4.000 ms  rotation\n               tried in this order: instructions, bus-cycles (fails)"
          in out, "explain: the order at 4 ms")
    check("every counter it could use was taken" in out, "explain: too many events")
    # instructions: 12 ms of 24 at 800/block: 28,800,000 counted, scaled x2
    check("28800000 x 24.000 / 12.000 = 57600000" in out, "explain: the scaling formula")
    check("true count 57600000: the estimate is off by +0 (+0.00%)" in out, "explain: the error")
    check(re.search(r"bus-cycles\n(.*\n)*?  it never ran: perf prints <not counted>", out),
          "explain: bus-cycles never ran")
    path, _ = trace_of("constraint", tmp)
    out2 = run(["explain", path])
    check("none its events are allowed on (a counter constraint)" in out2, "explain: constraint")
    # a phased stream: branches run only in busy phases (hand: +60%)
    out3 = run(["explain", "--counters", "1", "--duration-ms", "16", "--phase-ms", "4",
                "-e", "branches,branch-misses"])
    check("3840000 x 16.000 / 8.000 = 7680000" in out3 and "(+60.00%)" in out3, "explain: phased error")


def test_html(tmp):
    import shutil
    chromium = shutil.which("chromium")
    if not chromium:
        print("chromium is not installed (scripts/setup installs it)")
        sys.exit(77)
    path, _ = trace_of("pinned_starves", tmp)
    html = os.path.join(tmp, "page.html")
    run(["timeline", path, "-o", html])
    text = open(html).read()
    check(not re.search(r"(src|href)=\"(https?:)?//", text), "html: refers to the network")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    dom = subprocess.run([chromium] + flags + ["--user-data-dir=" + tempfile.mkdtemp(dir=tmp),
                         "--dump-dom", "file://" + html], capture_output=True, text=True,
                         timeout=90).stdout
    body = re.search(r"<body[^>]*>", dom)
    check(body and 'data-ready="1"' in body.group(0) and "data-error" not in body.group(0),
          f"html: the page's script did not run cleanly: {body.group(0) if body else dom[:200]}")
    check(body and 'data-rows="7"' in body.group(0), "html: 7 counter rows in the page")
    png = os.path.join(tmp, "shot.png")
    subprocess.run([chromium] + flags + ["--user-data-dir=" + tempfile.mkdtemp(dir=tmp),
                   "--screenshot=" + png, "--window-size=1700,420", "file://" + html],
                   capture_output=True, timeout=90)
    check(os.path.exists(png) and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n", "html: no screenshot")


def test_lab(tmp):
    """Every exercise of docs/labs/multiplexing.md: its command is in the
    doc verbatim and prints what the exercise predicts."""
    doc = open(sys.argv[3]).read()
    for cmd, predictions in LAB:
        check(cmd in doc, f"lab: command not in the doc: {cmd}")
        r = subprocess.run(cmd.replace("pmusim ", PMUSIM + " ", 1), shell=True,
                           capture_output=True, text=True, timeout=120)
        out = r.stdout
        # sched exits 1 when an event could not be opened
        refused = any(p[1] == "EINVAL" for p in predictions)
        check(r.returncode == (1 if refused else 0), f"lab: {cmd}: exit {r.returncode}")
        for name, count, enabled, running, scaled, truth in predictions:
            if count == "EINVAL":
                check(re.search(r"^" + re.escape(name) + r"\s+cannot be opened: Invalid argument$",
                                out, re.M), f"lab: {cmd}: {name} should fail to open")
                continue
            row = re.search(r"^" + re.escape(name) + r"\s+(<not counted>|\S+)\s+(\d+)\s+(\d+)\s+\S+%\s+(\S+)\s+(\d+)$",
                            out, re.M)
            got = row.groups() if row else None
            want = (str(count), str(enabled * MS), str(running * MS), str(scaled), str(truth))
            check(got == want, f"lab: {cmd}: {name}: got {got}, want {want}")


def perf_percentages(err):
    """perf stat's (xx.xx%) per event: running / enabled as perf read them."""
    out = {}
    for m in re.finditer(r"^\s*[\d,]+\s+(\S+)\s.*?(?:\((\d+\.\d+)%\))?\s*$", err, re.M):
        out[m.group(1)] = float(m.group(2)) if m.group(2) else 100.0
    return out


def check_against_perf(what, d, err, names):
    """The trace's times agree with what perf read (its percentages), and
    each event's running time is the sum of its residencies."""
    pct = perf_percentages(err)
    table = {ev["name"]: ev for ev in d["otherData"]["pmusim"]["events"]}
    held = {}
    for e in residencies(d):
        held[e["name"]] = held.get(e["name"], 0) + e["args"]["dur_ns"]
    for trace_name, perf_name in names.items():
        ev = table.get(trace_name)
        check(ev is not None and perf_name in pct, f"{what}: {trace_name} / {perf_name} missing")
        if ev is None or perf_name not in pct:
            continue
        check(held.get(trace_name, 0) == ev["running_ns"],
              f"{what}: {trace_name} residencies {held.get(trace_name)} != running {ev['running_ns']}")
        ratio = 100.0 * ev["running_ns"] / ev["enabled_ns"]
        check(abs(ratio - pct[perf_name]) < 0.006,
              f"{what}: {trace_name} ran {ratio:.3f}% in the trace, perf printed {pct[perf_name]}%")


def test_run(tmp):
    """pmusim run: perf stat's process opens the events, the emulated
    workload's process runs the core; the trace holds both. 3 events on 2
    counters rotated every 1 ms: [a b c]: 0 ab, 1 bc, 2 ca, 3 ab, 4 bc, 5 ca
    until the workload ends at E (about 5 ms)."""
    path = os.path.join(tmp, "run.json")
    r = subprocess.run([PMUSIM, "run", "--counters", "2", "--mux-interval", "1", "--trace-out", path,
                        "--", "perf", "stat", "-e", "branches,branch-misses,bus-cycles", "--",
                        sys.argv[3]], capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"run: exit {r.returncode}: {r.stderr[-300:]}")
    d = json.load(open(path))
    check_format("run", d)
    end = d["otherData"]["pmusim"]["end_ns"] / MS
    check(5 < end < 6, f"run: the workload ran {end} ms, want 5-6 (loop_mux.S)")
    got = {}
    for e in residencies(d):
        a = e["args"]
        got.setdefault(e["name"], []).append((a["start_ns"] / MS, (a["start_ns"] + a["dur_ns"]) / MS))
    want = {"branch-instructions": [(0, 1), (2, 4), (5, end)], "branch-misses": [(0, 2), (3, 5)],
            "bus-cycles": [(1, 3), (4, end)]}
    for name, w in want.items():
        check(merged(got.get(name, [])) == w, f"run: {name} held {merged(got.get(name, []))}, want {w}")
    check_against_perf("run", d, r.stderr, {"branch-instructions": "branches",
                                            "branch-misses": "branch-misses", "bus-cycles": "bus-cycles"})


def test_exec(tmp):
    """pmusim exec of perf itself: 6 flexible events on Skylake. [br bm bus
    cm cr ins]: at 0 four take gp0-3, cache-references fails, so
    instructions is not tried (fixed0 free). At 4 ms br goes to the tail:
    bm bus cm cr on, instructions on fixed0, br fails; the run ends at E.
    Times count from boot: the events start at the workload's exec."""
    path = os.path.join(tmp, "exec.json")
    r = subprocess.run([PMUSIM, "exec", "--model", "skylake", "--trace-out", path, "--", "/usr/bin/perf",
                        "stat", "-e", "branches,branch-misses,bus-cycles,cache-misses,cache-references,"
                        "instructions", "--", sys.argv[3]], capture_output=True, text=True, timeout=180)
    check(r.returncode == 0, f"exec: exit {r.returncode}: {r.stderr[-300:]}")
    d = json.load(open(path))
    check_format("exec", d)
    end = d["otherData"]["pmusim"]["end_ns"] / MS
    # the events start when the emulated perf's child execs the workload
    t0 = min(e["args"]["start_ns"] for e in residencies(d)) / MS
    check(failures_at(d, t0) == {"not on: cache-references": "too many events",
                                 "not on: instructions": "an earlier group failed"},
          f"exec: failures at {t0}: {failures_at(d, t0)}")
    ins = [e for e in residencies(d) if e["name"] == "instructions" and e["dur"] > 0]
    check([(e["tid"], e["args"]["start_ns"]) for e in ins] == [(32, 4 * MS)],
          f"exec: instructions held {[(e['tid'], e['args']['start_ns']) for e in ins]}, want fixed0 from 4 ms")
    check(4 < end < 6, f"exec: the workload ran {end} ms")
    check_against_perf("exec", d, r.stderr, {"instructions": "instructions",
                                             "cache-references": "cache-references",
                                             "branch-misses": "branch-misses"})


def test_badinput(tmp):
    """Files that are not pmusim traces: one line and status 1, never a crash."""
    bad = {
        "not_json": "nope",
        "empty": "",
        "no_meta": '{"traceEvents":[]}',
        "meta_not_object": '{"traceEvents":[],"otherData":{"pmusim":3}}',
        "no_arrays": '{"traceEvents":[],"otherData":{"pmusim":{}}}',
        "counters_not_array": '{"traceEvents":[],"otherData":{"pmusim":{"cpus":1,"counters":5,"events":[]}}}',
        "huge_cpus": '{"traceEvents":[],"otherData":{"pmusim":{"cpus":100000000,"counters":[],"events":[]}}}',
        "odd_members": '{"traceEvents":[3,{"ph":"X","cat":"counter"},{"ph":"i","cat":"failure","args":7}],'
                       '"otherData":{"pmusim":{"cpus":1,"counters":[5,{"idx":"x"}],"events":[1,{"name":7}]}}}',
    }
    for name, text in bad.items():
        path = os.path.join(tmp, name + ".json")
        open(path, "w").write(text)
        for args in (["timeline", path, "-o", os.path.join(tmp, "o.svg")], ["explain", path]):
            r = subprocess.run([PMUSIM] + args, capture_output=True, text=True, timeout=30)
            ok = name == "odd_members" and r.returncode == 0  # readable, if odd
            check(ok or (r.returncode == 1 and r.stderr.startswith("pmusim: ")),
                  f"badinput: {args[0]} {name}: status {r.returncode}, {r.stderr[-200:]}")


B = 3000  # blocks per ms at Skylake's 3 GHz
B2 = 2000  # at the PMUv3 model's 2 GHz
# (command, [(event, count, enabled ms, running ms, scaled, true count)]):
# count = running ms x B x per-block amount; scaled = count x enabled / running
LAB = [
    ("pmusim sched --duration-ms 24 -e branches,branch-misses,cache-references,cache-misses,bus-cycles,L1-dcache-load-misses",
     [("branches", 16 * B * 160, 24, 16, 24 * B * 160, 24 * B * 160),
      ("bus-cycles", 16 * B * 10, 24, 16, 24 * B * 10, 24 * B * 10)]),
    ("pmusim sched -e 'bus-cycles:D,{branches,branch-misses,cache-references,cache-misses}'",
     [("bus-cycles", 24 * B * 10, 24, 24, 24 * B * 10, 24 * B * 10),
      ("branches", "<not counted>", 24, 0, "-", 24 * B * 160)]),
    ("pmusim sched -e '{branches,branch-misses,cache-references,cache-misses,bus-cycles}'",
     [("bus-cycles", "EINVAL", 0, 0, 0, 0),
      ("branches", 24 * B * 160, 24, 24, 24 * B * 160, 24 * B * 160)]),
    ("pmusim sched -e '{branches,branch-misses,cache-references,cache-misses}:D,bus-cycles,instructions'",
     [("bus-cycles", "<not counted>", 24, 0, "-", 24 * B * 10),
      ("instructions", 12 * B * 800, 24, 12, 24 * B * 800, 24 * B * 800)]),
    ("pmusim sched -e 'branches:e,branch-misses,cache-references'",
     [("branches", 8 * B * 160, 24, 8, 24 * B * 160, 24 * B * 160),
      ("branch-misses", 8 * B * 8, 24, 8, 24 * B * 8, 24 * B * 8),
      ("cache-references", 16 * B * 13, 24, 16, 24 * B * 13, 24 * B * 13)]),
    ("pmusim sched -e inst_retired.prec_dist,r01c0,branches",
     [("inst_retired.prec_dist", 16 * B * 800, 24, 16, 24 * B * 800, 24 * B * 800),
      ("r01c0", 8 * B * 800, 24, 8, 24 * B * 800, 24 * B * 800),
      ("branches", 16 * B * 160, 24, 16, 24 * B * 160, 24 * B * 160)]),
    ("pmusim sched -e instructions,cycles,ref-cycles,branches,branch-misses,cache-references,cache-misses",
     [("instructions", 24 * B * 800, 24, 24, 24 * B * 800, 24 * B * 800),
      ("ref-cycles", 24 * B * 1000, 24, 24, 24 * B * 1000, 24 * B * 1000)]),
    # busy phases retire 160 branches a block, quiet ones 40 (a quarter)
    ("pmusim sched --counters 1 --duration-ms 16 --phase-ms 4 -e branches,branch-misses",
     [("branches", 8 * B * 160, 16, 8, 16 * B * 160, 8 * B * 160 + 8 * B * 40),
      ("branch-misses", 8 * B * 2, 16, 8, 16 * B * 2, 8 * B * 8 + 8 * B * 2)]),
    ("pmusim sched --counters 1 --duration-ms 16 --phase-ms 4 --mux-interval 1 -e branches,branch-misses",
     [("branches", 4 * B * 160 + 4 * B * 40, 16, 8, 8 * B * 160 + 8 * B * 40, 8 * B * 160 + 8 * B * 40)]),
    ("pmusim sched --counters 2 --duration-ms 16 --phase-ms 4 -e branches,branch-misses",
     [("branches", 8 * B * 160 + 8 * B * 40, 16, 16, 8 * B * 160 + 8 * B * 40, 8 * B * 160 + 8 * B * 40)]),
    # the PMUv3 model runs at 2 GHz: 2,000 blocks per ms; cache-misses is
    # L1D_CACHE_REFILL there (armv8_pmuv3_perf_map), 12 per block
    ("pmusim sched --model pmuv3 --counters 2 -e cycles,instructions,branch-misses,cache-misses",
     [("cycles", 16 * B2 * 1000, 24, 16, 24 * B2 * 1000, 24 * B2 * 1000),
      ("instructions", 20 * B2 * 800, 24, 20, 24 * B2 * 800, 24 * B2 * 800),
      ("cache-misses", 8 * B2 * 12, 24, 8, 24 * B2 * 12, 24 * B2 * 12)]),
]


def main():
    with tempfile.TemporaryDirectory() as tmp:
        {"trace": test_trace, "svg": test_svg, "scale": test_scale, "explain": test_explain,
         "html": test_html, "lab": test_lab, "run": test_run, "exec": test_exec, "badinput": test_badinput}[sys.argv[2]](tmp)
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print("ok")


main()
