/// The built-in substitution variables: exactly `alpha`, `upper`, `lower`, `alnum`, `digit`, `xdigit`,
/// `region` and `lang`.
///
/// `region` and `lang` are the lists Apple's `Locale.isoRegionCodes` and `Locale.isoLanguageCodes` return
/// (ICU's `uloc_getISOCountries` / `uloc_getISOLanguages` tables), each in upper and in lower case. They are
/// embedded rather than read from Foundation so the verdict is the same on every platform.
public enum BuiltinVariables {
  /// The built-in names, in documentation order.
  public static let names = ["alpha", "upper", "lower", "alnum", "digit", "xdigit", "region", "lang"]

  /// The values of a built-in variable, or nil for any other name.
  public static func values(of name: String) -> [String]? {
    switch name {
    case "alpha": upper + lower
    case "upper": upper
    case "lower": lower
    case "alnum": upper + lower + digits
    case "digit": digits
    case "xdigit": digits + ["A", "B", "C", "D", "E", "F", "a", "b", "c", "d", "e", "f"]
    case "region": regions + regions.map { $0.lowercased() }
    case "lang": languages + languages.map { $0.uppercased() }
    default: nil
    }
  }

  private static let upper = (UInt8(ascii: "A")...UInt8(ascii: "Z")).map { String(UnicodeScalar($0)) }
  private static let lower = (UInt8(ascii: "a")...UInt8(ascii: "z")).map { String(UnicodeScalar($0)) }
  private static let digits = (UInt8(ascii: "0")...UInt8(ascii: "9")).map { String(UnicodeScalar($0)) }

  /// ISO 3166-1 alpha-2 codes as ICU lists them (249 codes; `UK` is not one of them, `GB` is).
  static let regions: [String] = """
    AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT
    BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH
    ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT
    HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS
    LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI
    NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG
    SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG
    UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW
    """.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)

  /// ISO 639 codes as ICU lists them: two letters where one exists, three letters otherwise (594 codes).
  static let languages: [String] = """
    aa ab ace ach ada ady ae aeb af afh agq ain ak akk akz ale aln alt am an ang anp ar arc arn aro arp
    arq ars arw ary arz as asa ase ast av avk awa ay az ba bal ban bar bas bax bbc bbj be bej bem bew
    bez bfd bfq bg bgn bho bi bik bin bjn bkm bla bm bn bo bpy bqi br bra brh brx bs bss bua bug bum byn
    byv ca cad car cay cch ce ceb cgg ch chb chg chk chm chn cho chp chr chy ckb co cop cps cr crh cs
    csb cu cv cy da dak dar dav de del den dgr din dje doi dsb dtp dua dum dv dyo dyu dz dzg ebu ee efi
    egl egy eka el elx en enm eo es esu et eu ewo ext fa fan fat ff fi fil fit fj fo fon fr frc frm fro
    frp frr frs fur fy ga gaa gag gan gay gba gbz gd gez gil gl glk gmh gn goh gom gon gor got grb grc
    gsw gu guc gur guz gv gwi ha hai hak haw he hi hif hil hit hmn ho hr hsb hsn ht hu hup hy hz ia iba
    ibb id ie ig ii ik ilo inh io is it iu izh ja jam jbo jgo jmc jpr jrb jut jv ka kaa kab kac kaj kam
    kaw kbd kbl kcg kde kea ken kfo kg kgp kha kho khq khw ki kiu kj kk kkj kl kln km kmb kn ko koi kok
    kos kpe kr krc kri krj krl kru ks ksb ksf ksh ku kum kut kv kw ky la lad lag lah lam lb lez lfn lg
    li lij liv lkt lmo ln lo lol loz lrc lt ltg lu lua lui lun luo lus luy lv lzh lzz mad maf mag mai
    mak man mas mde mdf mdh mdr men mer mfe mg mga mgh mgo mh mi mic min mis mk ml mn mnc mni moh mos mr
    mrj ms mt mua mul mus mwl mwr mwv my mye myv mzn na nan nap naq nb nd nds ne new ng nia niu njo nl
    nmg nn nnh no nog non nov nqo nr nso nus nv nwc ny nym nyn nyo nzi oc oj om or os osa ota pa pag pal
    pam pap pau pcd pdc pdt peo pfl phn pi pl pms pnt pon prg pro ps pt qu quc qug raj rap rar rgn rif
    rm rn ro rof rom rtm ru rue rug rup rw rwk sa sad sah sam saq sas sat saz sba sbp sc scn sco sd sdc
    sdh se see seh sei sel ses sg sga sgs shi shn shu si sid sk sl sli sly sm sma smj smn sms sn snk so
    sog sq sr srn srr ss ssy st stq su suk sus sux sv sw swb swc syc syr szl ta tcy te tem teo ter tet
    tg th ti tig tiv tk tkl tkr tl tlh tli tly tmh tn to tog tpi tr tru trv ts tsd tsi tt ttt tum tvl tw
    twq ty tyv tzm udm ug uga uk umb und ur uz vai ve vec vep vi vls vmf vo vot vro vun wa wae wal war
    was wbp wo wuu xal xh xmf xog yao yap yav ybb yi yo yrl yue za zap zbl zea zen zgh zh zu zun zxx zza
    """.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
}
