import { useMemo, useState } from 'react'
import CrudPage from '../../../components/crud/CrudPage'
import { tenantConfig, type TenantDialog } from './config'
import TenantDialogs from './TenantDialogs'

/** /system/tenant: tenants, with authorization, package and data source settings. */
export default function TenantPage() {
  const [open, setOpen] = useState<{ dialog: TenantDialog; reload: () => void } | null>(null)
  const config = useMemo(() => tenantConfig((dialog, reload) => setOpen({ dialog, reload })), [])
  return (
    <>
      <CrudPage config={config} />
      {open && (
        <TenantDialogs
          dialog={open.dialog}
          onClose={() => setOpen(null)}
          onDone={() => {
            setOpen(null)
            open.reload()
          }}
        />
      )}
    </>
  )
}
