"""The console's form fields, read as numbers: a wrong one is refused in words, naming the
field and what was typed; an empty one is its default, or refused when it has none."""

from __future__ import annotations

import pytest
from starlette.datastructures import FormData

from kiosk.i18n import translator
from kiosk.scorer.web.admin import forms

pytestmark = pytest.mark.unit
say = translator("zh-Hans")


def refusal(read, typed: str) -> str:
    with pytest.raises(forms.FormRefusal) as refused:
        read(FormData({"f": typed}), "f", "每场分钟数")
    return say(refused.value.key, **refused.value.params)


def test_numbers_typed_are_read_and_empty_fields_take_their_default():
    assert forms.whole(FormData({"f": " 7 "}), "f", "轮数") == 7
    assert forms.number(FormData({"f": "2.5"}), "f", "每场分钟数") == 2.5
    assert forms.whole(FormData({"f": ""}), "f", "轮数", default=None) is None
    assert forms.number(FormData({}), "f", "每场分钟数", default=0) == 0


@pytest.mark.parametrize(("read", "typed", "said"), [
    (forms.whole, "2.5", "“每场分钟数”须填整数（如 3），不能是“2.5”。"),
    (forms.number, "abc", "“每场分钟数”须填数字（如 5 或 2.5），不能是“abc”。"),
    (forms.number, "inf", "“每场分钟数”须填数字（如 5 或 2.5），不能是“inf”。"),
    (forms.number, "nan", "“每场分钟数”须填数字（如 5 或 2.5），不能是“nan”。"),
])
def test_a_field_that_is_not_its_number_is_refused_in_words(read, typed, said):
    assert refusal(read, typed) == said


@pytest.mark.parametrize("read", [forms.whole, forms.number])
def test_an_empty_field_without_a_default_is_asked_for(read):
    assert refusal(read, "  ") == "请填写“每场分钟数”。"
