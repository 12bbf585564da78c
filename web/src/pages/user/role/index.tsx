import { useCallback, useMemo, useState } from 'react'
import CrudPage from '../../../components/crud/CrudPage'
import { roleConfig } from './config'
import GrantDialog from './GrantDialog'

/** /authority/role: roles and their grants. */
export default function RolePage() {
  const [grant, setGrant] = useState<{ roleIds: string[]; reload: () => void } | null>(null)
  const config = useMemo(() => roleConfig((roleIds, reload) => setGrant({ roleIds, reload })), [])
  const close = useCallback(() => setGrant(null), [])
  return (
    <>
      <CrudPage config={config} />
      {grant && (
        <GrantDialog
          roleIds={grant.roleIds}
          onClose={close}
          onDone={() => {
            setGrant(null)
            grant.reload()
          }}
        />
      )}
    </>
  )
}
