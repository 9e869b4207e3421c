"""The search index's words: stemming and synonyms never turn a word into one of another meaning."""

from __future__ import annotations

from mcp_codegen_runtime.agents.search_index import build_index, document_from_listing, query_terms


def test_news_is_neither_new_nor_create() -> None:
    # Before: `news` stemmed to `new`, which the synonym table read as `create`.
    assert query_terms("latest news") == ["latest", "news"]
    assert query_terms("new messages") == ["new", "message"]
    # A request to post may mean sending; a tool's posts stay posts.
    assert query_terms("post a message") == ["post", "send", "message"]
    index = build_index([document_from_listing("get_posts", None, "List the blog's posts", None)])
    assert index.scores(["send"]) == {} and index.scores(["post"])


def test_plurals_and_synonyms_of_one_meaning_still_meet() -> None:
    assert query_terms("emails") == query_terms("mail") == ["mail"]
    assert query_terms("remove files") == query_terms("delete file")
    assert query_terms("fetch the page") == query_terms("get page")


def test_a_news_request_finds_the_news_tool_not_the_creating_one() -> None:
    tools = [
        ("create_issue", "Create a new issue in a repository"),
        ("create_page", "Make a new page"),
        ("get_news", "Get news articles for a topic"),
    ]
    index = build_index(document_from_listing(name, None, text, None) for name, text in tools)
    scores = index.scores(query_terms("what is in the news today"))
    assert [index.names[position] for position in scores] == ["get_news"]
