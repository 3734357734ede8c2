"""The per-answer inspector: everything is read from one trace record, so a live turn, a replay and
a turn re-opened from a traces file are shown the same way."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from apps.replay import LEGACY, Comparison, replay
from core.config import MISSING_CONTEXT_MODES, RETRIEVAL_MODES, SEPARATORS, Settings
from core.context.rerank import ORDERS, walk_order
from core.errors import ContextLensError
from core.trace import answered_by
from ui import state
from ui.components import answer_md, highlight, md_escape, one_line, short

log = logging.getLogger(__name__)

TABS = ("Prompt", "Tokens", "Evidence ledger", "Decision", "Grounding", "What-if replay")
SECTIONS = ("system", "procedure", "knowledge", "memory", "history", "user")
FATE_STYLE = {  # background of the fate cell in ledgers
    "kept": "background-color: #d3f9d8; color: #1b5e20",
    "summarised": "background-color: #fff3bf; color: #7a5b00",
    "truncated": "background-color: #ffe8cc; color: #8a3c00",
    "condensed": "background-color: #e7f5ff; color: #1864ab",
    "duplicate": "background-color: #e9ecef; color: #495057",
    "over_budget": "background-color: #ffe3e3; color: #a61e1e",
    "below_min_score": "background-color: #f1f3f5; color: #868e96",
    "quarantined": "background-color: #ffd8a8; color: #7f2704",
}
OK = ":green[:material/check_circle:]"
BAD = ":red[:material/cancel:]"
WARN = ":orange[:material/warning:]"


def render(trace: dict[str, Any], *, key: str, settings: Settings | None) -> None:
    """The inspector of one turn; `key` makes its widgets unique; no settings → no replay."""
    label = (
        f"Inspector · {trace.get('query_type', '?')} · {trace.get('num_chunks_included', 0)} chunks · "
        f"{trace.get('prompt_tokens', 0):,} / {trace.get('prompt_limit', 0):,} prompt tokens · "
        f"trace {trace.get('id', '?')}"
    )
    with st.expander(label, icon=":material/manage_search:"):
        tabs = st.tabs(TABS)
        with tabs[0]:
            prompt_tab(trace)
        with tabs[1]:
            tokens_tab(trace)
        with tabs[2]:
            ledger_tab(trace)
        with tabs[3]:
            decision_tab(trace)
        with tabs[4]:
            grounding_tab(trace)
        with tabs[5]:
            if settings is None:
                st.info("Replay needs a working index and settings.")
            else:
                whatif_tab(trace, key, settings)


# Prompt ------------------------------------------------------------------------------------------


def prompt_tab(trace: dict[str, Any]) -> None:
    msgs = trace.get("messages") or []
    sections = trace.get("message_sections") or ["?"] * len(msgs)
    st.caption(prompt_caption(trace, len(msgs)))
    for n, (msg, section) in enumerate(zip(msgs, sections, strict=False), 1):
        content = str(msg.get("content", ""))
        st.markdown(f"**{n}. {section}** · role `{msg.get('role', '?')}`")
        st.code(
            content, language=None, wrap_lines=True, height=320 if content.count("\n") > 14 else "content"
        )
    with st.expander("Copy as JSON (OpenAI `messages`)", icon=":material/data_object:"):
        st.code(json.dumps(msgs, indent=2, ensure_ascii=False), language="json", wrap_lines=True)


def prompt_caption(trace: dict[str, Any], n: int) -> str:
    """What the messages are: sent to the LLM, or (no LLM called) the prompt an LLM would receive."""
    order = "in injection order (system → procedure → knowledge → memory → history → user)"
    if trace.get("llm_called"):
        return f"The exact {n} messages sent to the LLM, {order}."
    if trace.get("refused"):
        return f"The prompt an LLM would receive: {n} messages, {order}. Refused, so no model was called."
    return (
        f"The prompt an LLM would receive: {n} messages, {order}. Offline mode: no model was called; the "
        "extractive answerer read the same knowledge block."
    )


# Tokens ------------------------------------------------------------------------------------------


def section_table(trace: dict[str, Any]) -> pd.DataFrame:
    """Tokens per prompt section, in injection order, as recorded in the trace."""
    sections = trace.get("sections") or {}
    limit = max(1, int(trace.get("prompt_limit") or 1))
    rows = [
        {
            "section": name,
            "tokens": int(sections.get(name, 0)),
            "% of prompt limit": 100 * sections.get(name, 0) / limit,
        }
        for name in SECTIONS
    ]
    return pd.DataFrame(rows)


def tokens_tab(trace: dict[str, Any]) -> None:
    limit = int(trace.get("prompt_limit") or 0)
    budget = trace.get("knowledge_budget")
    context = int(trace.get("context_tokens") or 0)
    prompt = int(trace.get("prompt_tokens") or 0)
    c1, c2, c3, c4 = st.columns(4)
    knowledge = int((trace.get("sections") or {}).get("knowledge", 0))
    c1.metric("Prompt", f"{prompt:,}", help=f"of the {limit:,}-token prompt limit (window − reply reserve)")
    c2.metric(
        "Knowledge section", f"{knowledge:,}",
        help=f"the knowledge message as sent (the bar in the chart): the {context:,}-token knowledge block "
        f"the budget limits, plus {max(0, knowledge - context):,} tokens of the message around it",
    )  # fmt: skip
    c3.metric("Answer", f"{int(trace.get('answer_tokens') or 0):,}")
    c4.metric("Total", f"{int(trace.get('total_tokens') or 0):,}")
    table = section_table(trace)
    chart_data = table.assign(order=range(len(table)))
    top = max([*table["tokens"], budget or 0, 1]) * 1.15
    bars = (
        alt.Chart(chart_data)
        .mark_bar(cornerRadiusEnd=3)
        .encode(
            y=alt.Y("section:N", sort=list(SECTIONS), title=None, axis=alt.Axis(labelOverlap=False)),
            x=alt.X("tokens:Q", scale=alt.Scale(domain=[0, top]), title="tokens"),
            color=alt.Color("section:N", sort=list(SECTIONS), legend=None),
            tooltip=["section", "tokens"],
        )
    )
    labels = bars.mark_text(align="left", dx=3).encode(text="tokens:Q", color=alt.value("#444"))
    layers = [bars, labels]
    if budget:
        rule = alt.Chart(pd.DataFrame({"x": [budget], "what": [f"knowledge budget {budget}"]}))
        layers.append(rule.mark_rule(strokeDash=[4, 3], color="#d9480f").encode(x="x:Q", tooltip=["what"]))
    st.altair_chart(alt.layer(*layers).properties(height=alt.Step(26)), width="stretch")
    if budget:
        st.progress(min(1.0, context / budget), text=knowledge_line(context, budget, knowledge))
    else:
        st.caption("Blind top-k run: no knowledge budget applied.")
    if limit:
        st.progress(
            min(1.0, prompt / limit), text=f"Whole prompt: {prompt:,} of the {limit:,}-token prompt limit"
        )
    st.dataframe(
        table,
        hide_index=True,
        width="stretch",
        column_config={"% of prompt limit": st.column_config.NumberColumn(format="%.1f%%")},
    )


def knowledge_line(context: int, budget: int, knowledge: int) -> str:
    """The budget bar's text, naming the chart's knowledge figure too (they differ by the wrapper)."""
    line = f"Knowledge block: {context:,} of the {budget:,}-token knowledge budget"
    if knowledge and knowledge != context:
        line += f" · the knowledge section charted above is {knowledge:,}: the block plus {knowledge - context:,} of message wrapper"
    return line


# Evidence ledger ---------------------------------------------------------------------------------


def ledger_table(chunks: list[dict[str, Any]]) -> pd.DataFrame:
    rows = []
    for n, c in enumerate(chunks, 1):
        source = c.get("source", "")
        if c.get("page"):
            source = f"{source} p.{c['page']}"
        rows.append(
            {
                "#": n,
                "source": source,
                "chunk": short(c.get("chunk_id")),
                "score": float(c.get("score") or 0.0),
                "tokens": int(c.get("tokens") or 0),
                "injected tokens": int(c.get("injected_tokens") or 0),
                "fate": c.get("fate", ""),
                "units": _units(c),
                "duplicate of": short(c.get("duplicate_of")),
                "dense/lexical rank": f"{_rank(c.get('dense_rank'))} / {_rank(c.get('lexical_rank'))}",
                "suspicious": "; ".join(c.get("flags") or []) or ("yes" if c.get("suspicious") else ""),
            }
        )
    return pd.DataFrame(rows)


def _units(c: dict[str, Any]) -> str:
    """ "n of m" evidence units injected (unit packing), "" for the whole-chunk walk."""
    kept, total = c.get("units_kept"), c.get("units_total")
    return f"{kept} of {total}" if kept is not None and total is not None else ""


def _rank(value: Any) -> str:
    return "—" if value is None else str(value)


def styled(table: pd.DataFrame) -> Any:
    """The ledger with its fate column next to the source (visible without scrolling) and coloured."""
    if table.empty or "fate" not in table:
        return table
    return fate_after_source(table).style.map(lambda fate: FATE_STYLE.get(fate, ""), subset=["fate"])


def fate_after_source(table: pd.DataFrame) -> pd.DataFrame:
    """The same table with the fate column (and the shield's reason, when any chunk has one) moved
    right after the source column, where a narrow screen still shows them."""
    if "fate" not in table or "source" not in table:
        return table
    front = ["fate"]
    if "suspicious" in table and table["suspicious"].astype(bool).any():
        front.append("suspicious")
    cols = [c for c in table.columns if c not in front]
    at = cols.index("source") + 1
    return table[cols[:at] + front + cols[at:]]


def injected_explanation(trace: dict[str, Any]) -> str:
    """Why "injected" is more than "tokens": each entry's header and fence, and the block's own."""
    chunks = trace.get("chunks") or []
    kept = next((c for c in chunks if c.get("fate") == "kept" and c.get("injected_tokens")), None)
    text = (
        "**tokens** = the chunk as stored; **injected** = what the knowledge block holds for it: its text "
        "(cut when summarised, truncated or condensed) plus its header lines (Source, Section, Category, "
        "Relevance Score) and the `<doc-…>` fence tags around it"
    )
    if kept:
        extra = int(kept["injected_tokens"]) - int(kept.get("tokens") or 0)
        text += f" — e.g. {short(kept.get('chunk_id'))}: {kept.get('tokens')} + {extra} = {kept['injected_tokens']}"
    injected = sum(int(c.get("injected_tokens") or 0) for c in chunks)
    context = int(trace.get("context_tokens") or 0)
    if injected and context >= injected:
        text += (
            f". The block's {context:,} tokens = {injected:,} injected by the entries + "
            f"{context - injected:,} of its own header and separators."
        )
    return text


def walked_in(trace: dict[str, Any]) -> str:
    """What the ledger's row order is: the order the budget walked the candidates in."""
    settings = trace.get("settings") or {}
    order = walk_order(
        str(settings.get("evidence_order", "")),
        str(settings.get("packing", "chunks")),
        trace.get("setup") == "baseline",
    )
    how = ORDERS.get(order)
    said = (
        f" (evidence order `{order}`: {how}; then chunks about a sibling of the asked model last)"
        if how
        else ""
    )
    return (
        f"Rows in the order the budget walked the candidates{said}, quarantined ones at the end; "
        "**dense/lexical rank** are the retrieval ranks."
    )


def ledger_tab(trace: dict[str, Any]) -> None:
    chunks = trace.get("chunks") or []
    if not chunks:
        st.info("Retrieval returned no candidates.")
        return
    st.caption(
        f"{trace.get('num_candidates', len(chunks))} candidates · {trace.get('num_chunks_included', 0)} "
        f"injected · {trace.get('num_deduped', 0)} duplicates · "
        f"{trace.get('num_condensed', 0)} condensed · {trace.get('num_summarized', 0)} summarised · "
        f"{trace.get('num_truncated', 0)} truncated · {trace.get('num_suspicious', 0)} suspicious"
    )
    st.caption(injected_explanation(trace))
    st.caption(walked_in(trace))
    st.dataframe(
        styled(ledger_table(chunks)),
        hide_index=True,
        width="stretch",
        column_config={
            "#": st.column_config.NumberColumn(width=32),
            "source": st.column_config.TextColumn(width=205),
            "chunk": st.column_config.TextColumn(width=90, help="chunk id (first 10 characters)"),
            "score": st.column_config.ProgressColumn(
                format="%.3f", min_value=0.0, max_value=1.0, width=95, help="dense cosine similarity"
            ),
            "tokens": st.column_config.NumberColumn(width=55, help="tokens of the chunk as stored"),
            "injected tokens": st.column_config.NumberColumn(
                "injected", width=60, help="tokens as injected: its text plus its header lines and fence tags"
            ),
            "fate": st.column_config.TextColumn(width=105),
            "units": st.column_config.TextColumn(
                width=60, help="evidence units injected of the chunk's units (unit packing)"
            ),
            "duplicate of": st.column_config.TextColumn("dup. of", width=75),
            "dense/lexical rank": st.column_config.TextColumn(
                "rank d/l", width=70, help="rank in the dense and in the lexical search (— = not found)"
            ),
            "suspicious": st.column_config.TextColumn(
                "shield",
                width=120,
                help="why the injection shield quarantined the chunk: fenced under a warning line, never "
                "quoted by the offline answer (or left out: fate quarantined)",
            ),
        },
    )
    st.markdown("**Text as injected**")
    for n, c in enumerate(chunks, 1):
        text = c.get("injected_text") or ""
        if not text:
            continue
        label = (
            f"{n}. {c.get('source', '')} · {short(c.get('chunk_id'))} · {c.get('fate')} · "
            f"{c.get('injected_tokens', 0)} tokens"
        )
        with st.expander(label, icon=":material/warning:" if c.get("suspicious") else None):
            if c.get("suspicious"):
                why = "; ".join(c.get("flags") or []) or "instruction-like text"
                st.warning(
                    f"Quarantined by the injection shield: it {md_escape(why)}. It is injected under a warning "
                    "line, its markers defused, and the offline answer quotes none of it."
                )
            if c.get("notes"):
                st.caption(f":material/visibility_off: {md_escape(str(c['notes']))}")
            st.code(text, language=None, wrap_lines=True)
            dropped = c.get("dropped_units") or []
            if dropped and st.toggle(
                f"Show the {len(dropped)} units left out", key=f"dropped-{trace.get('id', '')}-{n}"
            ):
                st.code("\n".join(f"- {u}" for u in dropped), language=None, wrap_lines=True)


# Decision ----------------------------------------------------------------------------------------


def decision_tab(trace: dict[str, Any]) -> None:
    top = trace.get("top_score")
    context = trace.get("context_tokens") or 0
    refused = bool(trace.get("refused"))
    baseline = trace.get("setup") == "baseline"
    c1, c2, c3, c4 = st.columns(4)
    c1.metric(
        "Query type", str(trace.get("query_type", "?")), help=f"classifier: {trace.get('classifier', '?')}"
    )
    c2.metric("Refused", "yes" if refused else "no")
    c3.metric(
        "Top score", "—" if top is None else f"{top:.3f}", help="dense cosine similarity of the best chunk"
    )
    c4.metric("Context tokens", f"{context:,}")
    lines = []
    if refused:
        reason = md_escape(trace.get("refusal_reason") or "no reason recorded")
        lines.append(f":red[:material/block:] **Refused** — {reason}")
        lines.append(_missing_context_line(trace))
    elif baseline:
        lines.append("**Not refused** — blind top-k run (no refusal rule)")
    else:
        lines.append(f"{OK} **Answered** — the refusal checks passed")
    # the rule's checks as the pipeline decided them (traces before version 2 carry only the reason)
    for check in (trace.get("decision") or {}).get("checks", []):
        if not baseline:
            lines.append(f"{OK if check.get('passed') else BAD} {md_escape(str(check.get('detail', '')))}")
    question = trace.get("question", "")
    rewritten = trace.get("rewritten_query") or question
    if rewritten != question:
        lines.append(
            f":material/edit_note: rewritten query ({trace.get('rewrite_method')}): *{md_escape(rewritten)}*"
        )
    else:
        lines.append(":material/edit_note: query used as asked (no rewrite)")
    lines.append(
        f"answered by **{md_escape(answered_by(trace))}** · LLM called: {'yes' if trace.get('llm_called') else 'no'}"
        + f" · retrieval `{trace.get('retrieval_mode', '?')}` · setup `{trace.get('setup', '?')}`"
    )
    if trace.get("history_turns"):
        lines.append(
            f"history: {trace.get('history_turns_included', 0)} of {trace['history_turns']} earlier turns "
            f"included · {len(trace.get('memory_snippets') or [])} memory snippet(s)"
        )
    st.markdown("  \n".join(lines))
    t1, t2, t3, t4 = st.columns(4)
    t1.metric("Retrieval", _ms(trace.get("retrieval_ms")))
    t2.metric("Budgeting", _ms(trace.get("budgeting_ms")))
    t3.metric("Answer", _ms(trace.get("answer_ms")))
    t4.metric("Total", _ms(trace.get("total_ms")))


def _missing_context_line(trace: dict[str, Any]) -> str:
    """How the refusal was written (traces before version 4: the exact sentence, nothing recorded)."""
    if trace.get("related"):
        line = (
            "answered with the related sources (missing-context mode `related`), still counted as a refusal"
        )
    else:
        line = f"answered with the exact refusal sentence (missing-context mode `{trace.get('missing_context', 'refuse')}`)"
    saved = trace.get("tokens_saved")
    if saved:
        line += f" · {saved:,} prompt tokens not sent (no LLM call)"
    return line


def _ms(value: Any) -> str:
    return "—" if value is None else f"{float(value):,.0f} ms"


# Grounding ---------------------------------------------------------------------------------------


def _with_problem(s: dict[str, Any]) -> dict[str, Any]:
    """A sentence check with its problem in words (traces before version 2 carry only the flags)."""
    if "problem" in s:
        return s
    problem = ""
    if not s.get("supported"):
        problem = "unsupported by the injected context"
    elif not s.get("citation_ok"):
        problem = "missing citation" if not s.get("citations") else "cites a chunk that was not injected"
    return {**s, "problem": problem}


def grounding_tab(trace: dict[str, Any]) -> None:
    g = trace.get("grounding")
    if not g:
        st.info(
            "No grounding check: the question was refused." if trace.get("refused") else "No grounding data."
        )
        return
    sentences = [_with_problem(s) for s in g.get("sentences") or []]
    bad = sum(1 for s in sentences if s["problem"])
    c1, c2 = st.columns(2)
    c1.metric(
        "Grounding score",
        f"{float(g.get('score') or 0):.0%}",
        help="share of sentences that pass every check: supported, about the entity asked, "
        "numbers in the evidence, correctly cited",
    )
    c2.metric("Flagged sentences", bad)
    for s in sentences:
        text = s.get("sentence", "")
        cites = ", ".join(s.get("citations") or []) or "none"
        why = s["problem"] or "supported"
        if not s["problem"]:
            line = f"{OK} {md_escape(text)}"
        elif s.get("supported"):
            line = f"{WARN} {highlight(text, 'orange')}"
        else:
            line = f"{BAD} {highlight(text, 'red')}"
        st.markdown(line)
        st.caption(
            f"{why} · support {float(s.get('support') or 0):.2f} · cites {md_escape(cites)} · best match: "
            f"“{md_escape(str(s.get('best_match', ''))[:220])}”"
        )


# What-if replay ----------------------------------------------------------------------------------


def whatif_tab(trace: dict[str, Any], key: str, settings: Settings) -> None:
    rec = trace.get("settings") or {}
    seps = SEPARATORS
    modes = RETRIEVAL_MODES
    sep = rec.get("separator", settings.separator)
    mode = rec.get("retrieval_mode", settings.retrieval_mode)
    with st.form(key=f"{key}-whatif", border=True):
        st.caption("Re-run this question with other settings and compare (the original turn is unchanged).")
        c1, c2, c3 = st.columns(3)
        top_k = c1.number_input("Top-k", 1, 200, int(rec.get("top_k", settings.top_k)), key=f"{key}-top_k")
        budget = c2.number_input(
            "Knowledge budget", 16, settings.prompt_limit,
            min(int(rec.get("knowledge_budget", settings.knowledge_budget)), settings.prompt_limit), step=50,
            key=f"{key}-budget",
        )  # fmt: skip
        tau = c3.number_input(
            "τ", 0.0, 1.0, float(rec.get("refusal_tau", settings.refusal_tau)), 0.01, key=f"{key}-tau"
        )
        c4, c5, c6 = st.columns(3)
        separator = c4.selectbox(
            "Separator", seps, index=seps.index(sep) if sep in seps else 1, key=f"{key}-sep"
        )
        retrieval = c5.selectbox(
            "Retrieval mode", modes, index=modes.index(mode) if mode in modes else 2, key=f"{key}-mode"
        )
        templates = c6.text_input(
            "Templates file", str(rec.get("templates_path", settings.templates_path)), key=f"{key}-templates"
        )
        missing = rec.get("missing_context", "refuse")
        missing_context = st.selectbox(
            "When the sources lack the answer", MISSING_CONTEXT_MODES,
            index=MISSING_CONTEXT_MODES.index(missing) if missing in MISSING_CONTEXT_MODES else 0,
            key=f"{key}-missing",
        )  # fmt: skip
        blind = st.checkbox("Blind top-k (no budget, dedupe or refusal)", key=f"{key}-blind")
        go = st.form_submit_button("Replay", type="primary", icon=":material/replay:", key=f"{key}-replay")
    if go:
        changes = {
            "top_k": int(top_k),
            "knowledge_budget": int(budget),
            "refusal_tau": float(tau),
            "separator": separator,
            "retrieval_mode": retrieval,
            "missing_context": missing_context,
            # a Path always: replay_settings copies without validation and the snapshot holds a str
            "templates_path": Path(templates.strip() or settings.templates_path),
        }
        try:
            with st.spinner("Replaying…"):
                after = replay(
                    settings, state.resources(settings), trace, changes, blind=blind, record=False
                ).after
        except ContextLensError as e:
            st.error(one_line(e, state.secrets_of(settings)))
        except Exception as e:
            log.exception("replay failed")
            st.error(f"Replay failed: {one_line(e, state.secrets_of(settings))}")
        else:
            recorded = {k: rec.get(k, LEGACY.get(k)) for k in changes}
            after["replay_changes"] = {
                k: str(v) if isinstance(v, Path) else v
                for k, v in changes.items()
                if str(v) != str(recorded[k])
            }
            after["replay_blind"] = blind
            try:
                state.record_replay(settings, str(trace.get("id")), after)
            except ContextLensError as e:
                st.warning(f"This replay is not saved (a reload will lose it): {one_line(e)}")
    runs = state.replays(str(trace.get("id")))
    if runs:
        comparison(trace, runs[-1], len(runs))


def comparison(before: dict[str, Any], after: dict[str, Any], n_runs: int = 1) -> None:
    """Two runs side by side: headline numbers, section tokens, answers and ledgers."""
    comp = Comparison(before=before, after=after)
    changed = after.get("replay_changes") or {}
    what = ", ".join(f"{k}={v}" for k, v in changed.items()) or "same settings"
    if after.get("replay_blind"):
        what += " · blind top-k"
    st.markdown(f"**Replay {n_runs}** · `{what.replace('`', '')}` · trace {after.get('id', '?')}")
    rows = [{"": k, "before": _cell(b), "after": _cell(a)} for k, b, a in comp.rows() if k != "answer"]
    for name in SECTIONS:
        b = (before.get("sections") or {}).get(name, 0)
        a = (after.get("sections") or {}).get(name, 0)
        rows.append({"": f"tokens: {name}", "before": _cell(b), "after": _cell(a)})
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    left, right = st.columns(2)
    for col, rec, title in ((left, before, "Before"), (right, after, "After")):
        with col:
            st.markdown(f"**{title}** · {rec.get('context_tokens', 0)} context tokens")
            if rec.get("refused"):
                st.warning(f"Refused: {rec.get('refusal_reason', '')}")
            st.markdown(answer_md(str(rec.get("answer", ""))))
            table = ledger_table(rec.get("chunks") or [])
            if not table.empty:
                st.dataframe(
                    styled(table[["source", "fate", "chunk", "score", "injected tokens"]]), hide_index=True
                )
    fates = [
        {"source": src, "before": b or "—", "after": a or "—", "chunk": short(cid)}
        for cid, src, b, a in comp.fates()
        if b != a
    ]
    if fates:
        st.markdown("**Chunks whose fate changed**")
        st.dataframe(pd.DataFrame(fates), hide_index=True, width="stretch")
    else:
        st.caption("Every chunk kept its fate.")


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "—" if value is None or value == "" else str(value)
