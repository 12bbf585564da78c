import CrudPage from '../../../components/crud/CrudPage'
import { clientConfig } from './config'

/** /system/client: OAuth clients. */
export default function ClientPage() {
  return <CrudPage config={clientConfig} />
}
