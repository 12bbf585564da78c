import CrudPage from '../../../components/crud/CrudPage'
import { regionConfig } from './config'

/** /system/region: administrative regions. */
export default function RegionPage() {
  return <CrudPage config={regionConfig} />
}
