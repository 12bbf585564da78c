import DictScreen from '../dict/DictScreen'

/** /system/dictbiz: the tenant's business dictionaries. */
export default function DictBizPage() {
  return <DictScreen kind="dict-biz" />
}
