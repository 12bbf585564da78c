import CrudPage from '../../../components/crud/CrudPage'
import { ownerConfig } from './config'

/** /integrated/owner: plant owners. */
export default function OwnerPage() {
  return <CrudPage config={ownerConfig} />
}
