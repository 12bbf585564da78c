import DictScreen from './DictScreen'

/** /system/dict: the platform's dictionaries. */
export default function DictPage() {
  return <DictScreen kind="dict" />
}
