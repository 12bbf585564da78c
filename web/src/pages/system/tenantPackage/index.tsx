import CrudPage from '../../../components/crud/CrudPage'
import { tenantPackageConfig } from './config'

/** /system/tenantPackage: tenant product packages. */
export default function TenantPackagePage() {
  return <CrudPage config={tenantPackageConfig} />
}
