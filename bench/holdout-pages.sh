#!/usr/bin/env bash
# Recreates the held-out pages that bench/situation-labels-holdout.json labels: for each
# fixture below, <out>/<id>.html (the page, byte for byte) and <id>.json ({url, articleBody: ""}).
# The page text is not in this repository; it comes from snapshots of the public repositories
# that hold the fixtures (postlight/parser, codelucas/newspaper, adbar/trafilatura).
#
# Usage: bench/holdout-pages.sh [out-dir] [git-dir ...]
#   out-dir  defaults to /tmp/holdout
#   git-dir  a bare git directory of one of those repositories; one whose path names
#            owner+name (or owner/name) is used for that repository. Otherwise
#            ${MIRROR:-/work/.mirror}/<owner>+<name>/repo is used.
# Each page is read by its git blob id (so any snapshot holding that version works), falling
# back to HEAD:<path> with a warning when the blob differs. The id is the first 12 hex
# characters of sha1("<owner>/<name>:<path>").
# Labelled at: postlight/parser @e8ba7ece291e, codelucas/newspaper @1618b547f31c,
# adbar/trafilatura @e90b0ef51ab0.
set -euo pipefail

out=${1:-/tmp/holdout}
[[ $# -gt 0 ]] && shift
gitdirs=("$@")

gitdir_for() { # owner/name -> git dir
  local repo=$1 plus=${1/\//+} d
  for d in "${gitdirs[@]}"; do
    if [[ $d == *"$plus"* || $d == *"$repo"* ]]; then
      echo "$d"
      return
    fi
  done
  echo "${MIRROR:-/work/.mirror}/$plus/repo"
}

mkdir -p "$out"
n=0 failed=0
# id  repository  blob  fixture path  original URL
while read -r id repo blob path url; do
  [[ -z $id || $id == \#* ]] && continue
  git=$(gitdir_for "$repo")
  if git --git-dir="$git" cat-file -e "$blob" 2>/dev/null; then
    git --git-dir="$git" cat-file blob "$blob" >"$out/$id.html"
  elif git --git-dir="$git" cat-file -e "HEAD:$path" 2>/dev/null; then
    echo "warning: $repo:$path differs from the labelled version ($blob)" >&2
    git --git-dir="$git" show "HEAD:$path" >"$out/$id.html"
  else
    echo "missing: $repo:$path (git dir $git)" >&2
    failed=$((failed + 1))
    continue
  fi
  printf '{"url": "%s", "articleBody": ""}\n' "$url" >"$out/$id.json"
  n=$((n + 1))
done <<'PAGES'
88bc0338aa29 postlight/parser d484d700349eb35e2e73b7b1e195b20f4d6feedc fixtures/247sports.com.html https://247sports.com/Article/Houston-Cougars-hire-Major-Applewhite-as-head-coach-49676932/
206f051c3e06 postlight/parser 6db1a200ac1ff3f49c849056081cda32405fc6c0 fixtures/deadline.com.html https://deadline.com/2019/04/donald-trump-boeing-max-737-rebrand-advice-twitter-1202595880/
ab939861b45b postlight/parser f8e43c3d79d5639341d2a6a4f1673fd8ed7c942d fixtures/deadspin.com.html https://deadspin.com/the-nationals-are-stuck-with-danny-espinosa-tonight-un-1787706769
0555dd79bb32 postlight/parser e3ea9f61da21c4a79bceef84aa3f11fc496ea175 fixtures/fandom.wikia.com.html http://fandom.wikia.com/articles/box-office-good-peculiar
adc625190c12 postlight/parser f66cce227cb1e682aac37ca76edbcb5bfa9f359a fixtures/fortune.com.html http://fortune.com/2016/12/15/amazon-alexa-gadgets/
7410c62c7d36 postlight/parser 376f7a82bfc27b5537d8190d33705ace403725bb fixtures/forward.com.html https://forward.com/schmooze/358592/why-does-slack-want-me-to-say-hummus/
5faf603b07b3 postlight/parser 3e70fede3c47c747c58f1788445c30cd6fae8ed2 fixtures/ici.radio-canada.ca.html https://ici.radio-canada.ca/nouvelle/1022038/kpmg-comptables-fiscalite-impots-paradis-fiscaux-juge-bocock-cocktail
3c3a08c68d45 postlight/parser 93ed443e9016c6820c111ab7e9a36190c04683a8 fixtures/mashable.com.html https://mashable.com/article/mysterious-plane-flying-over-new-york
7c27ff345499 postlight/parser db9879f53afb9f4e5c3dc45af16943e73313f1f8 fixtures/money.cnn.com.html https://money.cnn.com/2016/11/29/news/ohare-workers-strike/index.html
4dea341f8c2d postlight/parser 7d5208559ab91c78a0f3634003b81f35346074b7 fixtures/news.mynavi.jp.html https://news.mynavi.jp/article/20190222-775563/
313f0739fbed postlight/parser 83071ef777485799898faeef55477f1920d924e0 fixtures/nymag.com.html https://nymag.com/intelligencer/2016/09/how-fox-news-women-took-down-roger-ailes.html
8fcf79d76e96 postlight/parser d6c924005e5ac07bd9369cffcb765bad81663b69 fixtures/pitchfork.com.html https://pitchfork.com/reviews/albums/lust-for-youth-lust-for-youth/
b1a9a12a3d0c postlight/parser bc286b76a3dfa5112531c2a313fb954ea67a8211 fixtures/sandiegouniontribune.com.html https://www.sandiegouniontribune.com/business/growth-development/story/2019-08-27/sdsu-mission-valley-stadium-management-firm
f5f440938e84 postlight/parser d00468bd68ae27640d68a664cb66190432d1b918 fixtures/scan.netsecurity.ne.jp.html https://scan.netsecurity.ne.jp/article/2019/03/05/42049.html
03a168d15672 postlight/parser 6783b815863e49785a2ea9b3c8a5c8522ff8d5bf fixtures/www.al.com.html https://www.al.com/news/birmingham/2016/12/two_arrested_in_multi-state_de.html
18d3845beae5 postlight/parser e7ad82248f672f962637b73d3495bdcb8b79ffe0 fixtures/www.androidcentral.com.html https://www.androidcentral.com/motorola-launch-new-phone-mobile-world-congress
12309d5e5653 postlight/parser 51de9b7ebd40bd813722c4102d838c64d7358d80 fixtures/www.bloomberg.com--graphics.html https://www.bloomberg.com/graphics/2016-apple-profits/
2f37e9d2b57d postlight/parser 6eea9021189b5c150c82a303ac55779f53d84be0 fixtures/www.bloomberg.com.html https://www.bloomberg.com/news/articles/2016-12-07/trump-hits-emblem-of-presidential-power-with-air-force-one-tweet
edf7eab5b0cf postlight/parser f8cf7f7ddd1d73add24eb69cb46edc33aca85323 fixtures/www.broadwayworld.com.html https://www.broadwayworld.com/article/American-Theatre-Wing-Launches-Andrew-Lloyd-Webber-Training-Scholarships-20161013
2b3f88161837 postlight/parser 3923db46300ca5fcf52b7945315396ac117d6ffb fixtures/www.buzzfeed.com.html https://www.buzzfeed.com/ikrd/people-are-calling-out-this-edited-picture-of-demi-lovato-fo
7a7ee60e4265 postlight/parser c5053c119d75433501dcf19320389c5e835ab259 fixtures/www.cbc.ca.html https://www.cbc.ca/news/business/crea-september-numbers-1.6616369
504ec1002c0b postlight/parser 3756d4a2bd8f853d312513018f193a74beb62438 fixtures/www.chicagotribune.com.html https://www.chicagotribune.com/nation-world/ct-trump-energy-department-climate-change-request-20161213-story.html
5dd98cf7f8ff postlight/parser 4fb0bff471cad728372729d5cd3d012ae3064c23 fixtures/www.dmagazine.com.html http://www.dmagazine.com/frontburner/2016/12/nfl-concussion-settlement-payments-can-begin/
6d51fdcc98bb postlight/parser e02780c875e20b524a4a307030f7133f6dc91d5e fixtures/www.engadget.com.html https://www.engadget.com/lyft-extends-free-scooter-rides-for-critical-workers-184144961.html
be5cbd425000 postlight/parser f575caed54c1af72c0e0fe27afbd7ab2c44e2ed6 fixtures/www.fool.com.html https://www.fool.com/investing/2017/01/09/why-amazon-microsoft-and-activision-blizzard-are-b.aspx
0491ffb676a9 postlight/parser 2b164ad9f96e477af29a323077fdff7ff93221c6 fixtures/www.investmentexecutive.com.html https://www.investmentexecutive.com/news/research-and-markets/imf-dims-outlook-for-2023-global-economy-amid-ukraine-war/
634566f56029 postlight/parser 6511f6359b46710463f15f6bf22dc74e4844d7dd fixtures/www.ladbible.com.html https://www.ladbible.com/news/latest-aussie-government-sparks-fury-over-graphic-and-confronting-covid-19-ad-20210711
c1709736188f postlight/parser e883032240dcb67fca96601a3b149fdcae3bf8db fixtures/www.latimes.com--old.html http://articles.latimes.com/2009/oct/14/business/fi-bigtvs14
aafe1ccc1bec postlight/parser 462f3b49b5ed13528319091caa68fbf900dc1a3c fixtures/www.latimes.com.html https://www.latimes.com/local/education/la-me-edu-report-on-la-school-shutdown-20161216-story.html
80dea9c151ce postlight/parser 2ce40bb5cc62ece732fa8edff59c2aebe2c6a3ce fixtures/www.littlethings.com.html https://littlethings.com/lifestyle/amazon-has-a-private-food-brand-that-just-launched-100-new-products-for-fall
faa584f3f72b postlight/parser d60228edcc37882b5722024ddb9843678fc2dcc4 fixtures/www.macrumors.com.html https://www.macrumors.com/2017/01/18/apple-pencil-2-march-2017/
248f25b4f5af postlight/parser a06481986dac972630a5b6fb0d4796b7527054c0 fixtures/www.nbcnews.com.html https://www.nbcnews.com/tech/tech-news/what-s-hold-spacex-n695001
05d2d02b7311 postlight/parser f1c054036938b976c5100362adaf27c6343ede0d fixtures/www.phoronix.com.html https://www.phoronix.com/news/Steam-May-2019-Numbers
837ce2bb0d4b postlight/parser ba6b916f055237cf9808927e8385dea212e3ad68 fixtures/www.politico.com--test-case-2.html https://www.politico.com/news/2022/10/17/student-debt-relief-applications-00062145
f2893478a40c postlight/parser 709af441db84274e0129fa5ed1d77529c6376800 fixtures/www.publickey1.jp.html https://www.publickey1.jp/blog/19/1ssdintel_ssd_d5-p4326qlc14643d_nandssd.html
ebe5dc76b1b4 postlight/parser 8627bf88552f3241cd2dd0df90c1fd5aebd1b482 fixtures/www.recode.net.html http://www.recode.net/2016/12/15/13971502/fcc-tom-wheeler-departure-net-neutrality-death-trump-layton
dbdaf7b0b761 postlight/parser ca853e2821db5b2536342b0dc04219a9d920bb9d fixtures/www.sbnation.com.html https://www.sbnation.com/mlb/2016/12/6/13857040/chris-sale-red-sox-trade-white-sox
218ffcb687ba postlight/parser 9d61ab173de54549f9ab0c21a9e5d2e1f76346e5 fixtures/www.si.com.html https://www.si.com/nfl/2017/01/12/dallas-cowboys-stephen-jerry-jones
eef18ba92a48 postlight/parser 0d25bcd930aaae63145c1d07886aa22c42375d84 fixtures/www.theguardian.com.html https://www.theguardian.com/us-news/2016/nov/29/standing-rock-protest-north-dakota-shutdown-evacuation
015786aa38e2 postlight/parser 01b546f4d0eb49348e61dcf193e573d28cc608ab fixtures/www.theverge.com--feature.html https://www.theverge.com/2016/10/31/13478080/microsoft-surface-studio-design-engineering-interview
2112b0c25d2e postlight/parser 4938220eb6b0688f120843f6be0aebf84373f9e3 fixtures/www.theverge.com.html https://www.theverge.com/2016/11/29/13774648/fcc-att-zero-rating-directv-net-neutrality-vs-tmobile
df12919335ca postlight/parser ec527000835b4b6060532a85a6af42016f8927ad fixtures/www.tmz.com.html https://www.tmz.com/2016/11/28/prince-wife-estate-will/
49f2dd9ad245 postlight/parser 7ab4e0fdbf622defe9251f4a0722d361b9c1e779 fixtures/www.vox.com.html https://www.vox.com/culture/2016/12/10/13898352/trump-twitter-harassment-policy-bannable
c59dc7687f6c postlight/parser b96979bb6a383c929a3d3e4a6fc57923e47cf8df fixtures/www.wired.com.html https://www.wired.com/2016/09/ode-rosetta-spacecraft-going-die-comet/
63f065f4bd96 codelucas/newspaper 1bf037fc25bad7ee45b6a6d5935f506ed5db9db0 tests/data/html/cntraveler.com2.html http://www.cntraveler.com/galleries/2014-12-24/what-the-airlines-did-well-in-2014-american-jetblue-ryanair
5da09f567a96 codelucas/newspaper 6e715389e6f44fd00db0d58c899b65564a8e93cf tests/data/html/huffingtonpost.com1.html http://www.huffingtonpost.com/2015/01/14/jamie-dimon-banks-assault_n_6470358.html
9183982b7cff codelucas/newspaper 4897cb5420b781ad6e972d0f6e88c7290fff0881 tests/data/html/mashable.com2.html http://mashable.com/2014/12/22/stansted-power-outage/
6bb649a90b1e codelucas/newspaper fe8b198e8503dc706b8fd26ab535f51169573628 tests/data/html/mlive.com2.html http://www.mlive.com/lions/index.ssf/2014/12/detroit_lions_ndamukong_suh_wi_2.html
fbba825831f1 codelucas/newspaper 710866f218f6ee6004e38267627a45ac51938db2 tests/data/html/nydailynews.com1.html http://www.nydailynews.com/new-york/brooklyn/boyfriend-mob-wives-star-sue-brooklyn-club-article-1.2078107
a691fe268df5 codelucas/newspaper e1136215adfb0151f72d7b1b1853fd6bc7267488 tests/data/html/nypost.com1.html http://nypost.com/2014/12/18/amazon-macmillan-make-peace-over-book-pricing/
f8036ee9cf44 codelucas/newspaper d889eb3d6a3fcdd6b1982d2368e13790a99ffd7e tests/data/html/reuters.com3.html http://uk.reuters.com/article/2014/12/30/uk-indonesia-airplane-idUKKBN0K601G20141230
f5adb60cf24b codelucas/newspaper 467951c939471c0abcd57d4cf279dd9748c26ada tests/data/html/space.com2.html http://www.space.com/27998-nasa-18-billion-omnibus-spending-bill.html
cb9a039ec1de codelucas/newspaper 2704b2ca68ffa13e61cb23178eab864361a7cff4 tests/data/html/technologyreview.com1.html http://www.technologyreview.com/featuredstory/532796/who-owns-the-biggest-biotech-discovery-of-the-century/
c1390572dd9b codelucas/newspaper 760d081cb843a896c5f8939c38c650b39a6f27a0 tests/data/html/thenextweb.com1.html http://thenextweb.com/insider/2015/01/14/blackberry-denies-samsung-buyout-rumors/
07e33ecc1d1c codelucas/newspaper 6949c3babe1ba47a4dfc001975f3d2d9a238cb96 tests/data/html/theroot.com1.html http://www.theroot.com/articles/culture/2014/12/rev_sharpton_responds_to_his_critics.html
ac356256fcb3 codelucas/newspaper bddd8a60780f181656ddef125d0c68250462a9c9 tests/data/html/youbeauty.com2.html http://www.youbeauty.com/face/we-tried-it-clinique-acne-solutions-powder-makeup-in-golden
422f80e1ab74 adbar/trafilatura 29476924e8a13a7243a100ae5cb62d21b195c14d tests/cache/blog.python.org.html http://blog.python.org/2016/12/python-360-is-now-available.html
4def9d895f08 adbar/trafilatura dee768129c4b5cbc023ec0e304025d5bf86a1c0b tests/cache/futurezone.at.lyft.html https://futurezone.at/digital-life/uber-konkurrent-lyft-startet-mit-waymo-robotertaxis-in-usa/400487461
d6bdf0be4943 adbar/trafilatura b1dd2e1f6a0067cbf8f85ba24c2e6b2595f9d736 tests/cache/github.blog.spiceland.html https://github.blog/2019-03-29-leader-spotlight-erin-spiceland/
4f59d78c4f80 adbar/trafilatura 58494af337d6f5f96c51c91fe2c2f239b7b0d284 tests/cache/knowtechie.com.rally.html https://knowtechie.com/rocket-pass-4-in-rocket-league-brings-with-it-a-new-rally-inspired-car/
d518163be71d adbar/trafilatura 5c342471c0a0336e67263a73516cf480027f4ae8 tests/cache/kulu-media.com.meta-outage.html https://kulu-media.com/meta-outage-hits-facebook-instagram-and-messenger/
c536128796a5 adbar/trafilatura f2080038a0b6e434651ff5d4bab5e3f84958788c tests/cache/luxuryhaven.co.hyatt.html https://www.luxuryhaven.co/2019/05/nam-nghi-phu-quoc-unbound-collection-by-hyatt-officially-opens.html
e88807c9b715 adbar/trafilatura dd0c1d71a5328d57b71b36a46a6c8e9fd846d97f tests/cache/nature.com.telescope.html https://www.nature.com/articles/d41586-019-02790-3
3742d5b1c4df adbar/trafilatura 0d758ea33c8f884191002ac89b8046b7eb112888 tests/cache/reuters.com.parasite.html https://www.reuters.com/article/us-awards-sag-idUSKBN1ZI0EH
11940a88fba2 adbar/trafilatura 7043a12c0d64f613700980f9e91c00e688cd67a1 tests/cache/sueddeutsche.de.flixtrain.html https://www.sueddeutsche.de/wirtschaft/bahn-flixbus-flixtrain-deutschlandtakt-fernverkehr-1.4445845
e5b1d46e0382 adbar/trafilatura 49487bfa8e25be335331b9c32d7458090ad1f119 tests/cache/theguardian.com.academics.html https://www.theguardian.com/education/2020/jan/20/thousands-of-uk-academics-treated-as-second-class-citizens
4174bef7d0d0 adbar/trafilatura c347d4432d02e5e7efd0b5aaf2774cafbd97fbae tests/cache/theverge.com.ios13.html https://www.theverge.com/2019/7/3/20680681/ios-13-beta-3-facetime-attention-correction-eye-contact
0e5670e82834 adbar/trafilatura cf971869631ccf2a8fcf0ce4730e30cb39aa29fb tests/cache/threatpost.com.android.html https://threatpost.com/android-ransomware-spreads-via-sex-simulation-game-links-on-reddit-sms/146774/
5860a6907b8d adbar/trafilatura a114022ee780a6a81773152008a9e0a9bf0a0487 tests/cache/vancouversun.com.microsoft.html https://vancouversun.com/technology/microsoft-moves-to-erase-its-carbon-footprint-from-the-atmosphere-in-climate-push/wcm/76e426d9-56de-40ad-9504-18d5101013d2
3076bf36d629 adbar/trafilatura 59a142053a00af1d4b7d99829a771ea44f1f3754 tests/cache/wikimediafoundation.org.turkey.html https://wikimediafoundation.org/news/2020/01/15/access-to-wikipedia-restored-in-turkey-after-more-than-two-and-a-half-years/
PAGES
echo "$n pages written to $out, $failed missing" >&2
[[ $failed -eq 0 ]]
