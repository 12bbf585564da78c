import { Select } from 'antd'
import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { fetchApprovers, type Approver } from '../../../api/flow/flow'

/**
 * The leave form's approver: a user of the tenant found by typing part of their account or name
 * (the hub answers at most 20, so the list narrows on the server).
 */
export default function ApproverSelect({
  value,
  onChange,
}: {
  value?: string
  onChange?: (id: string) => void
}) {
  const { t } = useTranslation()
  const [keyword, setKeyword] = useState('')
  const [options, setOptions] = useState<Approver[]>([])
  const [loading, setLoading] = useState(false)
  // Answers can arrive out of order while typing: only the last query's is shown.
  const latest = useRef(0)
  useEffect(() => {
    const asked = ++latest.current
    const timer = setTimeout(() => {
      setLoading(true)
      fetchApprovers(keyword)
        .then((found) => {
          if (asked === latest.current) setOptions(found)
        })
        .catch(() => {})
        .finally(() => {
          if (asked === latest.current) setLoading(false)
        })
    }, 250)
    return () => clearTimeout(timer)
  }, [keyword])
  return (
    <Select
      showSearch
      allowClear
      value={value}
      onChange={(id: string | undefined) => onChange?.(id ?? '')}
      filterOption={false}
      onSearch={setKeyword}
      loading={loading}
      placeholder={t('flow.approverSearch')}
      notFoundContent={loading ? null : t('flow.noApprover')}
      options={options.map((u) => ({
        value: u.id,
        label: u.name === u.account ? u.name : `${u.name} (${u.account})`,
      }))}
      data-testid="leave-approver"
    />
  )
}
