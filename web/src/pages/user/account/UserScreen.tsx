import { Col, Row } from 'antd'
import { useCallback, useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { deptTree } from '../../../api/system/dept'
import type { User } from '../../../api/user/admin'
import CrudPage from '../../../components/crud/CrudPage'
import SideTree from '../../../components/crud/SideTree'
import type { CrudConfig } from '../../../components/crud/types'
import UserRoleDialog from './UserRoleDialog'

interface Props {
  /** The screen's config, given the opener of the role dialog. */
  makeConfig: (openRoles: (users: User[], reload: () => void) => void) => CrudConfig<User>
  /** Show the department tree that narrows the list (`deptId=`). */
  deptFilter?: boolean
}

/** A user list with the role grant dialog (users, personnel). */
export default function UserScreen({ makeConfig, deptFilter }: Props) {
  const { t } = useTranslation()
  const [roles, setRoles] = useState<{ users: User[]; reload: () => void } | null>(null)
  const [deptId, setDeptId] = useState<string>()
  const config = useMemo(
    () => makeConfig((users, reload) => setRoles({ users, reload })),
    [makeConfig],
  )
  const query = useMemo(() => (deptId ? { deptId } : undefined), [deptId])
  const loadDepts = useCallback(() => deptTree(), [])

  const page = <CrudPage config={config} query={query} />
  return (
    <>
      {deptFilter ? (
        <Row gutter={16} wrap={false}>
          <Col flex="240px">
            <SideTree
              title={t('user.depts')}
              load={loadDepts}
              onSelect={setDeptId}
              testId="user-dept-tree"
            />
          </Col>
          <Col flex="auto" style={{ minWidth: 0 }}>
            {page}
          </Col>
        </Row>
      ) : (
        page
      )}
      {roles && (
        <UserRoleDialog
          users={roles.users}
          onClose={() => setRoles(null)}
          onDone={() => {
            setRoles(null)
            roles.reload()
          }}
        />
      )}
    </>
  )
}
