import CrudPage from '../../../components/crud/CrudPage'
import { paramConfig } from './config'

/** /system/param: system parameters. */
export default function ParamPage() {
  return <CrudPage config={paramConfig} />
}
