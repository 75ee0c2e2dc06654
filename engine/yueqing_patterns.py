"""The pattern ids the 乐清 scorer (engine/yueqing.py) detects, as data: engine/rules.py checks a
rule file's entries against them without importing the scorer (which loads rule tables)."""
from __future__ import annotations

YUEQING_PATTERNS = frozenset({
    "zi_feng_wei", "bai_ban", "hong_zhong_ke", "fa_cai_ke", "wu_caishen", "caishen_yi_guiwei",
    "shuang_caishen_zahu", "zahu_guiwei", "gang_shang_kai_hua", "qiang_gang_hu", "ping_hu",
    "caishen_zuo_niu", "san_caishen_zahu", "dui_dui_peng", "hun_yi_se", "caishen_diao",
    "shuang_caishen_shuang_guiwei", "san_caishen_shuang_guiwei", "san_caishen_zuo_niu",
    "ying_diao_mo_caishen", "qing_yi_se", "si_feng_qi", "si_bai_ban", "ying_diao", "tian_hu", "di_hu",
    "san_caishen_ke", "san_mei_ren", "san_caishen_san_guiwei", "zi_yi_se",
})
